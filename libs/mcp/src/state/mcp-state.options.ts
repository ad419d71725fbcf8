import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpStateStore } from './mcp-state-store.js';

export type BudgetName = 'general' | 'writes' | 'failedAuth';

export interface RateBudget {
  /** Requests allowed per window. */
  points: number;
  durationSec: number;
}

/** The shared state: where nonces, approvals and rate-limit counters live, and the budgets. */
export interface McpStateOptions {
  /** The shared store for nonces, approvals and counters (default: in memory, one process). */
  store?: McpStateStore;
  /**
   * Per-principal budgets (and per-address for failed logins), kept in the store. Give a budget to
   * change it, `false` to turn it off; defaults: general 300/min, writes 60/min, failedAuth 20 per 5 min.
   */
  rateLimits?: Partial<Record<BudgetName, RateBudget | false>>;
}

/** Registration-time extras: `global` makes the store and budgets visible to every module. */
export interface McpStateExtras {
  global?: boolean;
}

export const {
  ConfigurableModuleClass: McpStateModuleBase,
  MODULE_OPTIONS_TOKEN: MCP_STATE_OPTIONS,
  OPTIONS_TYPE: MCP_STATE_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_STATE_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpStateOptions>({ moduleName: 'McpState' })
  .setClassMethodName('forRoot')
  .setExtras<McpStateExtras>({ global: false }, (definition, extras) => ({ ...definition, global: extras.global }))
  .build();

export type McpStateModuleOptions = typeof MCP_STATE_OPTIONS_TYPE;
export type McpStateModuleAsyncOptions = typeof MCP_STATE_ASYNC_OPTIONS_TYPE;
