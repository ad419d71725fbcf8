import {
  getHeldHeader,
  InMemoryEventBus,
  InMemoryStateStore,
  McpStateModule,
  type McpModuleOptions,
  type McpStateOptions,
  type McpSubscriptionOptions,
} from '@kobana/nest-mcp';
import { RedisEventBus, RedisStateStore } from '@kobana/nest-mcp/redis';
import { type KaduPrincipal, principalKeyOf } from '../auth/kadu-principal.js';
import type { Request } from 'express';
import { apiErrorBody } from '../common/api-error.js';
import { KaduValidationPipe, VALIDATION_OPTIONS } from '../common/validation.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ALL_SCOPES } from '../auth/scopes.js';
import { KADU_INSTRUCTIONS } from './kadu-instructions.js';
import { kaduPageBrand } from './kadu-pages.js';

export const KADU_VERSION = '1.0.0';
/** How Kadu configures McpModule: its seed's revisions, its validation and error envelope, its OAuth metadata. */
export function kaduMcpOptions(config: AppConfig, stateSecret: string): McpModuleOptions {
  return {
    serverInfo: { name: 'kadu', title: 'Kadu', version: KADU_VERSION },
    instructions: KADU_INSTRUCTIONS,
    protocolVersions: ['2026-07-28', '2025-06-18', '2025-03-26'],
    publicBaseUrl: config.publicBaseUrl,
    bodyLimit: config.bodyLimit,
    validation: VALIDATION_OPTIONS,
    // The same pipe as the REST routes: NUL bytes and lone surrogates are a 422 at both doors.
    validationPipe: new KaduValidationPipe(),
    errorBody: apiErrorBody,
    // Held with the endpoint's headers (common/http-setup.ts): getHeldHeader, not res.getHeader, reads it.
    requestId: (_req: Request, res) => String(getHeldHeader(res, 'Request-Id')),
    annotationDefaults: { openWorldHint: false },
    // 2025 clients that set a log level or subscribe to a resource get {} rather than -32601, as
    // the 2025 scenarios of the conformance suite expect (docs/contributors/conformance.md). Kadu
    // sends neither log nor update notifications on a 2025 response, so `subscribe` stays false.
    legacyLogging: true,
    legacySubscriptions: true,
    stateKey: stateSecret,
    // Kadu's own salt: the keys derived from MCP_STATE_KEY stay those of earlier releases.
    stateKeySalt: 'kadu-mcp-state-key',
    // Approvals and request-state nonces are per organisation member, across replicas when Redis is configured.
    principalKey: (p) => principalKeyOf(p as KaduPrincipal),
    subscriptions: kaduSubscriptions(config),
    pages: {
      brand: kaduPageBrand(config),
      describeCaller: (p) => ({
        person: p.subject,
        organisation: (p as KaduPrincipal).org,
        role: (p as KaduPrincipal).role,
      }),
    },
    protectedResource: {
      authorizationServers: [config.oauthIssuer],
      scopesSupported: ALL_SCOPES,
      resourceName: 'Kadu MCP',
    },
  };
}

/**
 * subscriptions/listen: per-URI updates of executions and their steps. Offered when every replica
 * hears every event — Redis shared by the replicas, or the embedded single process — and never
 * with PostgreSQL but no Redis, where replicas could not hear each other's workers.
 */
export function kaduSubscriptions(config: AppConfig): McpSubscriptionOptions | undefined {
  if (!config.redis && config.databaseUrl) return undefined;
  return {
    eventBus: config.redis
      ? new RedisEventBus(config.redis, `${config.redisPrefix}mcp:`, { timeoutMs: config.dependencyTimeoutMs })
      : new InMemoryEventBus(),
    resourceSubscriptions: true,
    // Task status notifications of kadu_tasks_run's tasks (their member's streams follow them by task id).
    tasks: true,
    // An execution's events are heard by its organisation's streams only (the token's slug).
    audience: (p) => (p as KaduPrincipal | undefined)?.org,
    maxStreamsPerPrincipal: config.listenMaxStreams,
    maxSubscriptionsPerStream: config.listenMaxSubscriptions,
    heartbeatMs: config.listenHeartbeatMs,
  };
}

/** Kadu's state store and budgets, as the MCP endpoint and the app's own guards (REST limits, failed logins) share them. */
export function kaduMcpStateOptions(config: AppConfig): McpStateOptions {
  return {
    store: config.redis
      ? new RedisStateStore(config.redis, `${config.redisPrefix}mcp:`, { timeoutMs: config.dependencyTimeoutMs })
      : new InMemoryStateStore(),
    rateLimits: config.rateLimits,
  };
}

/** One registration, imported by every module whose providers use the store or the budgets. */
export const KaduMcpState = McpStateModule.forRootAsync({ inject: [APP_CONFIG], useFactory: kaduMcpStateOptions });
