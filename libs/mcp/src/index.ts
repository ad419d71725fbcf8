export { McpModule } from './mcp.module.js';
export { McpConfig } from './mcp-config.js';
export {
  MCP_MODULE_OPTIONS,
  type McpModuleOptions,
  type McpModuleAsyncOptions,
  type McpModuleDeclaration,
  type McpAccessRequirement,
  type McpToolAnnotationDefaults,
  type McpConfirmationText,
  type McpCallerDescription,
} from './mcp.options.js';
export { renderPage, escapeHtml, type PageBrand, type PageContent } from './pages/page-layout.js';
export { sendPage, formTargetOf } from './pages/page-response.js';
export { expiryHtml, relativeTime } from './pages/time-text.js';
export type { McpPrincipal } from './auth/principal.js';
export {
  formatBearerChallenge,
  protectedResourceMetadataUrl,
  canonicalResourceUrl,
  type BearerChallenge,
} from './auth/bearer-challenge.js';
export { McpTool, type McpToolOptions, type McpToolAnnotations } from './discovery/mcp-tool.decorator.js';
export {
  McpArg,
  McpInput,
  McpCaller,
  McpContext,
  McpHttpRequest,
  McpInputs,
  type McpArgOptions,
} from './discovery/mcp-param.decorators.js';
export { McpToolRegistry, type RegisteredTool } from './discovery/tool-registry.js';
export { DtoSchemaBuilder } from './discovery/dto-schema.js';
export { McpToolResult, type McpContent } from './dispatch/tool-result.js';
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
export { McpCatalogRegistry } from './discovery/catalog-registry.js';
export { McpResourceResult, McpPromptResult, type McpPromptMessage, type McpResourceContent } from './dispatch/catalog-results.js';
export type { McpCallContext } from './dispatch/mcp-call.js';
export { AccessPolicy, type AccessDecision } from './dispatch/access-policy.js';
export { EraGuard } from './guards/era.guard.js';
export { HeaderMatchGuard } from './guards/header-match.guard.js';
export { McpTransportGuard } from './guards/transport.guard.js';
export { JSONSchema } from 'class-validator-jsonschema';
export * as protocol from './protocol/index.js';
export { InputRequests, type InputRound as McpInputRound, type InputRequest, type ElicitResult } from './confirmation/inputs.js';
export { type McpStateStore, MCP_STATE_STORE, StateStoreUnavailable } from './state/mcp-state-store.js';
export { InMemoryStateStore } from './state/in-memory-state-store.js';
export { type McpEventBus, MCP_EVENT_BUS, EventBusUnavailable } from './events/mcp-event-bus.js';
export { InMemoryEventBus } from './events/in-memory-event-bus.js';
export { McpEvents } from './subscriptions/mcp-events.js';
export { ListenStreams } from './subscriptions/listen-streams.js';
export type { McpSubscriptionOptions } from './subscriptions/subscription-options.js';
export { RateLimits, rateLimitHeaders, RateLimitStoreUnavailable, DEFAULT_BUDGETS, type RateVerdict, type BudgetName } from './dispatch/rate-limits.js';
export { RateLimitGuard } from './guards/rate-limit.guard.js';
export { tooMany as tooManyRequests, unavailable as serviceUnavailable } from './guards/rate-limit.guard.js';
export { McpRejectionError } from './http/send.js';
export { mcpRequestSummary, type McpRequestSummary } from './http/exchange.js';
export { McpTelemetry } from './telemetry/mcp-telemetry.js';
export * as mcpSemconv from './telemetry/semconv.js';
export { StableExpressAdapter } from './http/stable-express.adapter.js';
export { canonicalJson } from './confirmation/canonical-json.js';
export { McpTaskEvents } from './tasks/task-events.js';
export type { McpTaskSource, McpTaskCaller, McpTaskCreation, McpTaskChange, McpTaskRef, McpTaskState, McpTaskStatus } from './tasks/task-source.js';
export { TASKS_EXTENSION } from './protocol/index.js';
