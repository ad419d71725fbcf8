import { createHash, randomBytes } from 'node:crypto';
import type { McpPrincipal } from '../auth/principal.js';
import type { McpModuleOptions } from '../mcp.options.js';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_MAX_JSON_DEPTH,
  isLegacyRevision,
  KNOWN_REVISIONS,
  offersNothing,
  type SubscriptionOffer,
} from '../protocol/index.js';
import type {
  CallerSettings,
  CatalogSettings,
  ConfirmationSettings,
  EndpointSettings,
  ListenSettings,
  McpSettings,
  StateSettings,
} from './mcp-settings.js';

/**
 * Every default of the module's options, in one place (docs: libs/mcp/docs/module-options.md).
 * `subscriptions.*` are the listen defaults (docs/listen.md §Limits).
 */
export const OPTION_DEFAULTS = Object.freeze({
  pageSize: 100,
  destructiveTools: 'confirm',
  stateKeySalt: 'mcp-state-key',
  approvalTtlMs: 10 * 60_000,
  maxPendingApprovals: 20,
  maxStreamsPerPrincipal: 10,
  maxSubscriptionsPerStream: 100,
  heartbeatMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  deliveryBatch: 64,
  closeTimeoutMs: 5000,
} as const);

/**
 * The one reader of the raw `McpModuleOptions`: checks them, applies every default and returns
 * the grouped, read-only settings the module runs on. Pure (no Nest, no I/O; only a random state
 * key when none is given), so it is tested alone (resolve-options.spec.ts). Throws on options that
 * cannot be served (an unknown or empty list of revisions, a malformed URL), at bootstrap.
 */
export function resolveOptions(raw: McpModuleOptions): McpSettings {
  return Object.freeze({
    endpoint: endpointOf(raw),
    callers: callersOf(raw),
    catalog: catalogOf(raw),
    errors: Object.freeze({
      errorBody: raw.errorBody ?? ((exception) => exception.getResponse()),
      requestId: raw.requestId,
    }),
    arguments: Object.freeze({ validation: raw.validation, validationPipe: raw.validationPipe }),
    state: stateOf(raw),
    confirmation: confirmationOf(raw),
    extensions: Object.freeze({ tasks: raw.tasks }),
    listen: listenOf(raw),
  });
}

function endpointOf(raw: McpModuleOptions): EndpointSettings {
  const unknown = (raw.protocolVersions ?? []).filter((v) => !(KNOWN_REVISIONS as readonly string[]).includes(v));
  if (unknown.length) throw new Error(`McpModule: unknown protocol revision(s) ${unknown.join(', ')}`);
  const protocolVersions = [...(raw.protocolVersions ?? KNOWN_REVISIONS)].sort().reverse();
  if (protocolVersions.length === 0) throw new Error('McpModule: protocolVersions is empty');
  const publicBaseUrl = raw.publicBaseUrl?.replace(/\/+$/, '');
  return Object.freeze({
    serverInfo: raw.serverInfo,
    instructions: raw.instructions,
    protocolVersions: Object.freeze(protocolVersions),
    publicBaseUrl,
    publicOrigin: publicBaseUrl ? new URL(publicBaseUrl).origin : undefined,
    allowedOrigins: Object.freeze((raw.allowedOrigins ?? []).map((o) => new URL(o).origin)),
    bodyLimit: raw.bodyLimit ?? DEFAULT_BODY_LIMIT,
    maxJsonDepth: raw.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
    protectedResource: raw.protectedResource,
    legacyLogging: raw.legacyLogging ?? false,
    legacySubscriptions: raw.legacySubscriptions ?? false,
  });
}

function callersOf(raw: McpModuleOptions): CallerSettings {
  const key = raw.principalKey;
  return Object.freeze({
    principal: raw.principal,
    customPrincipal: raw.principal !== undefined,
    authorize: raw.authorize,
    principalKey: (principal: McpPrincipal | undefined) =>
      !principal ? 'anonymous' : key ? key(principal) : principal.subject,
  });
}

function catalogOf(raw: McpModuleOptions): CatalogSettings {
  return Object.freeze({
    pageSize: raw.pageSize ?? OPTION_DEFAULTS.pageSize,
    annotationDefaults: Object.freeze({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
      ...raw.annotationDefaults,
    }),
    checkOutput: raw.checkOutput ?? true,
    presentResult: raw.presentResult ?? ((value) => value),
  });
}

function stateOf(raw: McpModuleOptions): StateSettings {
  // The Buffer itself cannot be frozen (a typed array with elements); the group holding it is.
  return Object.freeze({
    stateKey: deriveKey(raw.stateKey, raw.stateKeySalt ?? OPTION_DEFAULTS.stateKeySalt),
    stateStore: raw.stateStore,
    rateLimits: raw.rateLimits,
  });
}

function confirmationOf(raw: McpModuleOptions): ConfirmationSettings {
  return Object.freeze({
    destructiveTools: raw.destructiveTools ?? OPTION_DEFAULTS.destructiveTools,
    approvalTtlMs: raw.approvals?.ttlMs ?? OPTION_DEFAULTS.approvalTtlMs,
    maxPendingApprovals: raw.approvals?.maxPendingPerPrincipal ?? OPTION_DEFAULTS.maxPendingApprovals,
    approvalSessionCheck: raw.approvals?.sessionCheck,
    describeConfirmation: raw.describeConfirmation,
    pageBrand: raw.pages?.brand,
    describeCaller: raw.pages?.describeCaller,
  });
}

function listenOf(raw: McpModuleOptions): ListenSettings {
  const listen = raw.subscriptions;
  const offer = Object.freeze(subscriptionOffer(listen));
  const modern = (raw.protocolVersions ?? KNOWN_REVISIONS).some((v) => !isLegacyRevision(v));
  return Object.freeze({
    enabled: modern && !offersNothing(offer),
    offer,
    eventBus: listen?.eventBus,
    audience: listen?.audience,
    authorizeTask: listen?.authorizeTask,
    followModuleTasks: listen?.tasks === true,
    maxStreamsPerPrincipal: listen?.maxStreamsPerPrincipal ?? OPTION_DEFAULTS.maxStreamsPerPrincipal,
    maxSubscriptionsPerStream: listen?.maxSubscriptionsPerStream ?? OPTION_DEFAULTS.maxSubscriptionsPerStream,
    heartbeatMs: listen?.heartbeatMs ?? OPTION_DEFAULTS.heartbeatMs,
    maxBufferedBytes: listen?.maxBufferedBytes ?? OPTION_DEFAULTS.maxBufferedBytes,
    deliveryBatch: Math.max(1, listen?.deliveryBatch ?? OPTION_DEFAULTS.deliveryBatch),
    closeTimeoutMs: Math.max(0, listen?.closeTimeoutMs ?? OPTION_DEFAULTS.closeTimeoutMs),
  });
}

/** The offer the subscription options make; nothing when `subscriptions` is absent. */
function subscriptionOffer(listen: McpModuleOptions['subscriptions']): SubscriptionOffer {
  return {
    toolsListChanged: listen?.toolsListChanged === true,
    promptsListChanged: listen?.promptsListChanged === true,
    resourcesListChanged: listen?.resourcesListChanged === true,
    resourceSubscriptions: listen?.resourceSubscriptions === true,
    taskIds: listen?.authorizeTask !== undefined || listen?.tasks === true,
  };
}

function deriveKey(secret: string | Buffer | undefined, salt: string): Buffer {
  if (secret === undefined) return randomBytes(32);
  return createHash('sha256').update(`${salt}\0`).update(secret).digest();
}
