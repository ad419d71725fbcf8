import { budget, type RateBudget } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

class LimitsEnv {
  @Env(budget, {
    default: '300/60',
    meaning: 'requests per principal (org + subject) per window, MCP and REST together',
  })
  KADU_RATE_GENERAL!: RateBudget;

  @Env(budget, {
    default: '60/60',
    meaning: 'writes per principal: `tools/call` of non-read-only tools (runs included) and non-GET REST requests',
  })
  KADU_RATE_WRITES!: RateBudget;

  @Env(budget, {
    default: '20/300',
    meaning:
      'failed logins per client address; past it an invalid token from that address gets 429 instead of 401 (a valid token is never refused)',
  })
  KADU_RATE_FAILED_AUTH!: RateBudget;
}

export interface LimitsConfig {
  /** Rate limits "points/seconds" or "off" (KADU_RATE_GENERAL, KADU_RATE_WRITES, KADU_RATE_FAILED_AUTH). */
  readonly rateLimits: Record<'general' | 'writes' | 'failedAuth', RateBudget>;
}

export const limitsConfig = defineSlice('limits', LimitsEnv, ['rateLimits'], (values): LimitsConfig => ({
  rateLimits: {
    general: values.KADU_RATE_GENERAL,
    writes: values.KADU_RATE_WRITES,
    failedAuth: values.KADU_RATE_FAILED_AUTH,
  },
}));
