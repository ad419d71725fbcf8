import type { McpPrincipalReader } from '../auth/caller-identity.js';
import type { McpPrincipal } from '../auth/principal.js';
import type {
  McpAccessRequirement,
  McpCallerDescription,
  McpConfirmationText,
  McpModuleOptions,
  McpToolAnnotationDefaults,
} from '../mcp.options.js';
import type { PageBrand } from '../pages/page-layout.js';
import type { ServerInfo, SubscriptionOffer } from '../protocol/index.js';

type Raw = McpModuleOptions;
type RawListen = NonNullable<Raw['subscriptions']>;

/** The endpoint as clients and browsers meet it. */
export interface EndpointSettings {
  readonly serverInfo: ServerInfo;
  readonly instructions?: string;
  /** Enabled revisions, newest first (the order of `supportedVersions` and `data.supported`). */
  readonly protocolVersions: readonly string[];
  /** Without trailing slashes. */
  readonly publicBaseUrl?: string;
  readonly publicOrigin?: string;
  /** Origins only (a path given in the option is dropped). */
  readonly allowedOrigins: readonly string[];
  readonly bodyLimit: number;
  readonly maxJsonDepth: number;
  readonly protectedResource?: Raw['protectedResource'];
  readonly legacyLogging: boolean;
  readonly legacySubscriptions: boolean;
}

/** Who calls, and what they may use. */
export interface CallerSettings {
  /** The app's reader of the verified principal (undefined: `req.user`, auth/caller-identity.ts). */
  readonly principal?: McpPrincipalReader;
  /** Whether the app reads the principal itself (`principal` option) rather than from `req.user`. */
  readonly customPrincipal: boolean;
  readonly authorize?: (principal: McpPrincipal | undefined, target: McpAccessRequirement) => boolean;
  /** Who a request state, an approval or a stream belongs to: the app's key, else the subject; `anonymous` without one. */
  readonly principalKey: (principal: McpPrincipal | undefined) => string;
}

/** How the catalog is listed and how what a method returns is shaped. */
export interface CatalogSettings {
  readonly pageSize: number;
  readonly annotationDefaults: Readonly<Required<McpToolAnnotationDefaults>>;
  /** Results of tools with an `outputSchema` are checked against it before they are sent. */
  readonly checkOutput: boolean;
  readonly presentResult: (value: unknown) => unknown;
}

/** How errors and logs name a request. */
export interface ErrorSettings {
  readonly errorBody: NonNullable<Raw['errorBody']>;
  /** The app's request id (undefined: the `Request-Id` response header, `X-Request-Id` or a new UUID). */
  readonly requestId?: Raw['requestId'];
}

/** Given to host-validation.ts, which resolves them against the host's global pipe at app.init. */
export interface ArgumentSettings {
  readonly validation?: Raw['validation'];
  readonly validationPipe?: Raw['validationPipe'];
}

/** The signing key of cursors, request states and approvals, and the module's own state when no McpStateModule is given. */
export interface StateSettings {
  /** sha256(salt, secret), or 32 random bytes per process without a secret. */
  readonly stateKey: Buffer;
  readonly stateStore?: Raw['stateStore'];
  readonly rateLimits?: Raw['rateLimits'];
}

/** Destructive tools and the person's confirmation (docs/asking-the-person.md). */
export interface ConfirmationSettings {
  readonly destructiveTools: 'confirm' | 'refuse' | 'run';
  readonly approvalTtlMs: number;
  readonly maxPendingApprovals: number;
  readonly approvalSessionCheck?: NonNullable<Raw['approvals']>['sessionCheck'];
  readonly describeConfirmation?: (
    tool: { name: string; title?: string },
    args: Record<string, unknown>,
    principal: McpPrincipal | undefined,
  ) => string | McpConfirmationText | Promise<string | McpConfirmationText>;
  readonly pageBrand?: PageBrand;
  readonly describeCaller?: (principal: McpPrincipal) => McpCallerDescription;
}

/** Protocol extensions the app opts into. */
export interface ExtensionSettings {
  /** The Tasks extension's store (undefined: the extension is not offered). */
  readonly tasks?: Raw['tasks'];
}

/** `subscriptions/listen` (docs/listen.md), every default applied. */
export interface ListenSettings {
  /** Served: a 2026 revision is enabled and something is offered (else the method is unknown). */
  readonly enabled: boolean;
  /** What the options offer (all false without `subscriptions`). */
  readonly offer: Readonly<SubscriptionOffer>;
  readonly eventBus?: RawListen['eventBus'];
  readonly audience?: RawListen['audience'];
  readonly authorizeTask?: RawListen['authorizeTask'];
  /** Streams may follow the module's own tasks (`subscriptions.tasks`, with a `tasks` source). */
  readonly followModuleTasks: boolean;
  readonly maxStreamsPerPrincipal: number;
  readonly maxSubscriptionsPerStream: number;
  readonly heartbeatMs: number;
  readonly maxBufferedBytes: number;
  readonly deliveryBatch: number;
  readonly closeTimeoutMs: number;
}

/**
 * The module's options resolved once (settings/resolve-options.ts): grouped, every default applied,
 * read-only (each group frozen). Nothing else in the module reads the raw `McpModuleOptions`.
 */
export interface McpSettings {
  readonly endpoint: EndpointSettings;
  readonly callers: CallerSettings;
  readonly catalog: CatalogSettings;
  readonly errors: ErrorSettings;
  readonly arguments: ArgumentSettings;
  readonly state: StateSettings;
  readonly confirmation: ConfirmationSettings;
  readonly extensions: ExtensionSettings;
  readonly listen: ListenSettings;
}

/** The injection token of the resolved settings (mcp.module.ts provides them from the raw options). */
export const MCP_SETTINGS = Symbol('MCP_SETTINGS');
