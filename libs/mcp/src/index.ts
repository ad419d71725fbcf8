// The root entry: what an app that adopts the module imports. Optional backends and helpers are on
// subpaths, so that importing the root pulls none of their dependencies:
//   @kobana/nest-mcp/redis    RedisStateStore (ioredis)
//   @kobana/nest-mcp/express  StableExpressAdapter
//   @kobana/nest-mcp/testing  request builders for tests

// Registration
export { McpModule } from './mcp.module.js';
export { McpConfig } from './mcp-config.js';
export { resolveOptions } from './settings/resolve-options.js';
export type { McpSettings } from './settings/mcp-settings.js';
export {
  MCP_MODULE_OPTIONS,
  type McpModuleOptions,
  type McpModuleExtras,
  type McpModuleRootOptions,
  type McpModuleAsyncOptions,
  type McpOptionsFactory,
  type McpAccessRequirement,
  type McpToolAnnotationDefaults,
  type McpConfirmationText,
  type McpCallerDescription,
} from './mcp.options.js';
export { McpStateModule } from './state/mcp-state.module.js';
export {
  MCP_STATE_OPTIONS,
  type McpStateOptions,
  type McpStateModuleOptions,
  type McpStateModuleAsyncOptions,
  type BudgetName,
  type RateBudget,
} from './state/mcp-state.options.js';

// Declaring tools, resources, prompts and completions
export {
  McpTool,
  type McpToolOptions,
  type McpToolAnnotations,
  type McpPreflight,
  type McpPreflightedTool,
} from './discovery/mcp-tool.decorator.js';
export {
  McpArg,
  McpInput,
  McpCaller,
  McpContext,
  McpHttpRequest,
  McpInputs,
  type McpArgOptions,
} from './discovery/mcp-param.decorators.js';
export {
  McpResource,
  McpResourceTemplate,
  McpPrompt,
  McpCompletion,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
  type McpPromptOptions,
  type McpPromptArgument,
  type McpCompletionOptions,
} from './discovery/mcp-catalog.decorators.js';
export { JSONSchema } from 'class-validator-jsonschema';
export { McpToolRegistry, type RegisteredTool } from './discovery/tool-registry.js';
export { McpCatalogRegistry } from './discovery/catalog-registry.js';
export { DtoSchemaBuilder } from './discovery/dto-schema.js';
export { McpValidationPipe } from './validation/mcp-validation.pipe.js';
export {
  MCP_APPS_EXTENSION,
  MCP_APP_MIME_TYPE,
  type McpAppCsp,
  type McpAppResourceOptions,
  type McpToolUi,
} from './discovery/mcp-app.js';

// What a method gets and returns
export type { McpPrincipal } from './auth/principal.js';
export { principalFromUser, type McpRequest, type McpPrincipalReader } from './auth/caller-identity.js';
export type { McpCallerProjection } from './discovery/mcp-param.decorators.js';
export type { McpCallContext } from './call/mcp-call.js';
export { McpToolResult, type McpContent } from './call/tool-result.js';
export {
  McpResourceResult,
  McpPromptResult,
  type McpPromptMessage,
  type McpResourceContent,
} from './call/catalog-results.js';
export { McpInputRound, type ElicitResult } from './call/inputs.js';
export { InputRequests, type InputRequest } from './protocol/input-requests.js';

// Errors, and the refusals an app's own guards answer on the endpoint
export { McpRejectionError, StoreUnavailable } from './errors.js';
// Reading client values without coercing them (issue 34): for an app's own handlers and logs.
export { describeError, describeValue, stringField, stringParam } from './protocol/index.js';
export { tooManyRequests, serviceUnavailable } from './protocol/rejection.js';

// State shared with the host: store contract and budgets
export { type McpStateStore, type McpRateLimiter, MCP_STATE_STORE } from './state/mcp-state-store.js';
export { InMemoryStateStore } from './state/in-memory-state-store.js';
export { type McpEventBus, MCP_EVENT_BUS, EventBusUnavailable } from './events/mcp-event-bus.js';
export { InMemoryEventBus } from './events/in-memory-event-bus.js';
export { McpEvents } from './subscriptions/mcp-events.js';
export { ListenStreams } from './subscriptions/listen-streams.js';
export type { McpSubscriptionOptions } from './options/subscription-options.js';
export {
  RateLimits,
  rateLimitHeaders,
  setRateLimitHeaders,
  DEFAULT_BUDGETS,
  type RateVerdict,
} from './state/rate-limits.js';
// The endpoint's headers, held for its answer's one writeHead (an app's own header on the same answer: setHeldHeader).
export { holdHeaders, setHeldHeader, getHeldHeader, type HeaderSink } from './response/held-headers.js';

// Host pages, OAuth helpers, logs
export { renderPage, escapeHtml, type PageBrand, type PageContent } from './pages/page-layout.js';
export { sendPage, formTargetOf } from './pages/page-response.js';
export { expiryHtml, relativeTime } from './pages/time-text.js';
export {
  formatBearerChallenge,
  protectedResourceMetadataUrl,
  canonicalResourceUrl,
  type BearerChallenge,
} from './auth/bearer-challenge.js';
export { mcpErrorType, mcpRequestSummary, type McpRequestSummary } from './call/exchange.js';
export { canonicalJson } from './confirmation/canonical-json.js';
export { jsonTextTooDeep, DEFAULT_MAX_JSON_DEPTH } from './protocol/index.js';
export { McpTaskEvents } from './tasks/task-events.js';
export type {
  McpTaskSource,
  McpTaskCaller,
  McpTaskCreation,
  McpTaskChange,
  McpTaskRef,
  McpTaskState,
  McpTaskStatus,
} from './tasks/task-source.js';
export { TASKS_EXTENSION } from './protocol/index.js';
