import { flag, nonNegative } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

class WebhooksEnv {
  @Env(flag, {
    default: 'false',
    meaning:
      'allow webhook URLs on 127.0.0.0/8 and ::1 (development, tests); private, link-local and metadata addresses are always refused',
  })
  WEBHOOK_ALLOW_LOOPBACK!: boolean;

  @Env(nonNegative, { default: '1000', meaning: 'delivery backoff base (ms), doubling at each attempt' })
  WEBHOOK_RETRY_BASE_MS!: number;

  @Env(nonNegative, { default: '5', meaning: 'delivery attempts' })
  WEBHOOK_MAX_ATTEMPTS!: number;

  @Env(nonNegative, { default: '5000', meaning: 'per-attempt timeout (ms)' })
  WEBHOOK_TIMEOUT_MS!: number;
}

export interface WebhooksConfig {
  /** Loopback webhook URLs are refused unless explicitly allowed (development and tests). */
  readonly webhookAllowLoopback: boolean;
  readonly webhookRetryBaseMs: number;
  readonly webhookMaxAttempts: number;
  readonly webhookTimeoutMs: number;
}

export const webhooksConfig = defineSlice(
  'webhooks',
  WebhooksEnv,
  ['webhookAllowLoopback', 'webhookRetryBaseMs', 'webhookMaxAttempts', 'webhookTimeoutMs'],
  (values): WebhooksConfig => ({
    webhookAllowLoopback: values.WEBHOOK_ALLOW_LOOPBACK,
    webhookRetryBaseMs: values.WEBHOOK_RETRY_BASE_MS,
    webhookMaxAttempts: values.WEBHOOK_MAX_ATTEMPTS,
    webhookTimeoutMs: values.WEBHOOK_TIMEOUT_MS,
  }),
);
