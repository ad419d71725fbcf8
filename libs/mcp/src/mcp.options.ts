import {
  type CanActivate,
  ConfigurableModuleBuilder,
  type DynamicModule,
  type HttpException,
  type ModuleMetadata,
  type PipeTransform,
  type Type,
  type ValidationPipeOptions,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import type { McpPrincipalReader } from './auth/caller-identity.js';
import type { McpPrincipal } from './auth/principal.js';
import type { ServerInfo } from './protocol/index.js';
import type { PageBrand } from './pages/page-layout.js';
import type { McpStateStore } from './state/mcp-state-store.js';
import type { McpStateOptions } from './state/mcp-state.options.js';
import type { McpTaskSource } from './tasks/task-source.js';
import type { McpSubscriptionOptions } from './options/subscription-options.js';

export interface McpToolAnnotationDefaults {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a target (tool, resource, prompt) requires; fed to the one authorization decision. */
export interface McpAccessRequirement {
  readonly kind: 'tool' | 'resource' | 'prompt';
  readonly name: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}

/** The module's options, given to `forRoot` or made by `forRootAsync`'s factory; resolveOptions (settings/) applies the defaults. */
export interface McpModuleOptions {
  serverInfo: ServerInfo;
  instructions?: string;
  /** Protocol revisions served, any order (default: all four the module knows). */
  protocolVersions?: readonly string[];
  /** Public base URL, e.g. `https://api.example.com` (used for the Origin check and OAuth URLs). */
  publicBaseUrl?: string;
  /** Browser origins allowed besides the public origin and localhost. */
  allowedOrigins?: readonly string[];
  /** Request body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Deepest JSON nesting accepted in a request body (default 64); deeper → 400 `-32600`. */
  maxJsonDepth?: number;
  /**
   * Reads the verified principal that the app's guard put on the request (default: `req.user`, when
   * it is already `{ subject, scopes }`). `principalFromUser((user: AppUser) => …)` types it from the
   * app's user object. A request it finds nobody for, after declared guards, is refused (500).
   */
  principal?: McpPrincipalReader;
  /** Extra authorization predicate, applied after scopes and roles (e.g. feature flags). */
  authorize?: (principal: McpPrincipal | undefined, target: McpAccessRequirement) => boolean;
  /** The ValidationPipe options of the app's REST routes; tool arguments are validated the same way. */
  validation?: ValidationPipeOptions;
  /**
   * The app's own validation pipe (e.g. a ValidationPipe subclass with extra checks), used for tool,
   * prompt and resource arguments instead of one built from `validation`. Still give `validation`
   * too: its `forbidNonWhitelisted` shapes the published schemas.
   */
  validationPipe?: PipeTransform;
  /**
   * Check each `structuredContent` against its tool's `outputSchema` before it is sent (default
   * true): a result that does not fit is logged and answered as a masked internal error, never sent.
   */
  checkOutput?: boolean;
  /** Shapes a tool's return value as the REST route does (e.g. wraps it in `{ data }`); default: as is. */
  presentResult?: (value: unknown) => unknown;
  /** The error body the REST API sends for an HttpException (default: `exception.getResponse()`). */
  errorBody?: (exception: HttpException) => unknown;
  /** Request id for logs and generic error messages (default: the response's `Request-Id` header or a new UUID). */
  requestId?: (req: Request, res: Response) => string;
  /** Defaults for tool annotations not given on `@McpTool` (all false unless set). */
  annotationDefaults?: McpToolAnnotationDefaults;
  /** Page size of tools/list, resources/list, templates/list and prompts/list (default 100). */
  pageSize?: number;
  /**
   * Secret for cursors, request states and approvals (hashed with `stateKeySalt` into the key);
   * random per process if absent. Replicas that share a store must share it.
   */
  stateKey?: string | Buffer;
  /** Domain separation of the derived key (default `mcp-state-key`); an app that changes it changes every key. */
  stateKeySalt?: string;
  /**
   * OAuth protected-resource metadata (RFC 9728). When set, the module serves
   * `/.well-known/oauth-protected-resource<path>` and `/.well-known/oauth-protected-resource`,
   * and challenges name it.
   */
  protectedResource?: {
    authorizationServers: readonly string[];
    scopesSupported?: readonly string[];
    resourceName?: string;
  };
  /** Answer 2025-era `logging/setLevel` with `{}` and advertise `logging` (off by default). */
  legacyLogging?: boolean;
  /**
   * Acknowledge 2025-era `resources/subscribe` and `resources/unsubscribe` with `{}` (off by
   * default). A stateless server never sends update notifications, so `subscribe` stays
   * unadvertised; this only keeps clients that subscribe anyway from failing.
   */
  legacySubscriptions?: boolean;
  /**
   * Destructive tools (`destructiveHint: true`): `confirm` (default) runs them only after the
   * person confirms — in the chat (2026 + form elicitation) or through an approval link;
   * `refuse` never runs them through MCP; `run` runs them at once (trusted clients only).
   */
  destructiveTools?: 'confirm' | 'refuse' | 'run';
  /** A stable key for the principal that request states and approvals are bound to (default: subject). */
  principalKey?: (principal: McpPrincipal) => string;
  /**
   * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026 era): where the app keeps the tasks
   * its `@McpTool({ task })` tools answer with. Given, `server/discover` advertises the extension and
   * `tasks/get`, `tasks/update` and `tasks/cancel` are served; absent, no task is ever made.
   */
  tasks?: McpTaskSource;
  /**
   * The store for nonces, approvals and counters (default: in memory, one process). Only used
   * without a `state` module; with one, the state module's store is used.
   */
  stateStore?: McpStateStore;
  /** The budgets (see McpStateOptions); only used without a `state` module. */
  rateLimits?: McpStateOptions['rateLimits'];
  /**
   * `subscriptions/listen` (2026 era): what the server delivers and over which event bus. Absent
   * (or offering nothing): the method is unknown and discover advertises no `listChanged`/`subscribe`.
   */
  subscriptions?: McpSubscriptionOptions;
  /** Approval links for destructive tools. */
  approvals?: {
    /** Lifetime of a link (default 10 minutes). */
    ttlMs?: number;
    /** Undecided approvals one principal may hold within one lifetime (default 20); past it → `too_many_pending_approvals`. */
    maxPendingPerPrincipal?: number;
    /** The host app's web-session check on the approval page (default: the link alone). */
    sessionCheck?: (
      req: Request,
      approval: { id: string; subject: string; tool: string },
    ) => boolean | Promise<boolean>;
  };
  /**
   * Plain words for the confirmation: what will happen if the person continues, and whether it can
   * be undone. `args` come with every value the page's summary redacts replaced by `[redacted]`
   * (docs/security.md §Confirmation), so the sentence cannot quote a secret.
   */
  describeConfirmation?: (
    tool: { name: string; title?: string },
    args: Record<string, unknown>,
    principal: McpPrincipal | undefined,
  ) => string | McpConfirmationText | Promise<string | McpConfirmationText>;
  /** The pages a person sees (approvals): the host's identity, and how a caller is named. */
  pages?: {
    brand?: PageBrand;
    /** Who the caller is in words (default: the principal's subject). */
    describeCaller?: (principal: McpPrincipal) => McpCallerDescription;
  };
}

/** What a confirmation says: the plain-words sentence, and whether the action can be undone. */
export interface McpConfirmationText {
  readonly message: string;
  /** false: the pages and the chat say it cannot be undone, and the Continue button is styled as dangerous. */
  readonly undoable?: boolean;
  /** How to undo it, or why it cannot be (e.g. "The task can be created again, but its history is gone."). */
  readonly undoNote?: string;
}

/** The caller as a person reads it, on the approval page. */
export interface McpCallerDescription {
  readonly person: string;
  readonly organisation?: string;
  readonly role?: string;
}

/**
 * Registration-time extras: they shape routes and guards, so they cannot come from a factory.
 * With `forRootAsync` they sit beside `useFactory` / `useClass` / `useExisting`.
 */
export interface McpModuleExtras {
  /** Endpoint path (default `mcp`). */
  path?: string;
  /** Guards run before the MCP ladder, e.g. the app's bearer authentication (rung 3, docs/ladder.md). */
  guards?: Type<CanActivate>[];
  /** Modules the guards' and the options factory's dependencies come from. */
  imports?: ModuleMetadata['imports'];
  /**
   * The state (store and budgets) the endpoint shares with the host's own guards: an
   * `McpStateModule.forRoot(…)` or `forRootAsync(…)` registration, the same one the host's modules
   * import. Absent, the module keeps its own, built from `stateStore` and `rateLimits`.
   */
  state?: DynamicModule;
  /** Registers the module globally (default false), so its registries are visible everywhere. */
  global?: boolean;
}

export const {
  ConfigurableModuleClass: McpModuleBase,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras<McpModuleExtras>(
    { path: 'mcp', guards: [], imports: [], state: undefined, global: false },
    (definition) => definition,
  )
  .build();

/** `McpModule.forRoot(...)`: the options and the extras side by side. */
export type McpModuleRootOptions = typeof MCP_OPTIONS_TYPE;
/** `McpModule.forRootAsync(...)`: `useFactory` + `inject`, `useClass` or `useExisting`, and the extras. */
export type McpModuleAsyncOptions = typeof MCP_ASYNC_OPTIONS_TYPE;
/** What a `useClass` / `useExisting` options class implements. */
export interface McpOptionsFactory {
  create(): McpModuleOptions | Promise<McpModuleOptions>;
}
