import type { CanActivate, Type } from '@nestjs/common';
import { EraGuard } from './era.guard.js';
import { HeaderMatchGuard } from './header-match.guard.js';
import type { LadderCheck } from './ladder-check.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { McpTransportGuard } from './transport.guard.js';
import type { RejectionRung } from '../protocol/index.js';

/** One step of the request ladder: the rungs it checks, where, and the rejections it answers. */
export interface LadderStep {
  /** Rung numbers of docs/ladder.md §2. */
  readonly rungs: string;
  /** What is checked. */
  readonly checks: string;
  /**
   * The module's guard class for this step, whose `check` McpLadderGuard runs in its single pass;
   * absent where a middleware, the app or the dispatcher checks.
   */
  readonly guard?: Type<CanActivate & LadderCheck>;
  /** Who checks when no guard of the module does. */
  readonly by?: string;
  readonly rejections: readonly RejectionRung[];
}

/**
 * The order in which a request to the endpoint is checked; the first refusal answers. The
 * controller's `@UseGuards` is the app's guards followed by McpLadderGuard, which runs the
 * `LADDER_GUARDS` in this order in one pass: each relies on what the ones before it learnt (the
 * parsed message, then the era), so none of them works alone. docs/ladder.md has the statuses,
 * codes and the test that pins each rung.
 */
export const LADDER: readonly LadderStep[] = [
  {
    rungs: '1–2',
    checks: 'Origin; declared Content-Length — before authentication, without reading the body',
    by: 'McpEntryMiddleware (http/entry.middleware.ts)',
    rejections: ['origin_forbidden', 'body_too_large'],
  },
  { rungs: '3', checks: 'authentication (401 challenge)', by: "the app's guards (McpModule `guards`)", rejections: [] },
  {
    rungs: '4–9',
    checks: 'POST only; JSON only; body read under the limit; nesting depth; one JSON-RPC request or notification',
    guard: McpTransportGuard,
    rejections: [
      'method_not_allowed',
      'unsupported_media_type',
      'body_too_large',
      'parse_error',
      'nesting_too_deep',
      'batch_not_supported',
      'invalid_request',
    ],
  },
  {
    rungs: '10',
    checks: "the caller's rate-limit budgets",
    guard: RateLimitGuard,
    rejections: ['rate_limited', 'service_unavailable'],
  },
  {
    rungs: '11',
    checks: 'the era (2026 envelope or 2025), cross-checked with MCP-Protocol-Version',
    guard: EraGuard,
    rejections: [
      'envelope_invalid',
      'version_header_mismatch',
      'unsupported_version',
      'modern_header_without_envelope',
    ],
  },
  {
    rungs: '12',
    checks: '2026 only: Mcp-Method, Mcp-Name and Mcp-Param-* mirror the body',
    guard: HeaderMatchGuard,
    rejections: ['header_missing', 'header_mismatch'],
  },
  {
    rungs: '13–16',
    checks: 'notification → 202; unknown method; handler errors; unexpected failure',
    by: 'McpEndpointController → McpDispatcher; errors.ts maps what handlers throw',
    rejections: [
      'method_not_found',
      'invalid_params',
      'missing_client_capability',
      'insufficient_scope',
      'internal_error',
    ],
  },
];

/** The module's ladder guards, in order (after the app's own): McpLadderGuard runs them in one pass. */
export const LADDER_GUARDS: readonly Type<CanActivate & LadderCheck>[] = LADDER.flatMap((step) =>
  step.guard ? [step.guard] : [],
);
