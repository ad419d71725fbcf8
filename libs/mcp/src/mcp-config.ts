import { randomBytes, createHash } from 'node:crypto';
import { type HttpException, Inject, Injectable, Optional, type PipeTransform } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { Request, Response } from 'express';
import { canonicalResourceUrl, protectedResourceMetadataUrl } from './auth/bearer-challenge.js';
import { CallerIdentity } from './auth/caller-identity.js';
import { type ArgumentValidation, argumentValidation } from './host-validation.js';
import type { McpPrincipal } from './auth/principal.js';
import {
  type McpAccessRequirement,
  type McpCallerDescription,
  type McpConfirmationText,
  MCP_MODULE_OPTIONS,
  type McpModuleOptions,
  type McpToolAnnotationDefaults,
} from './mcp.options.js';
import type { PageBrand } from './pages/page-layout.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_JSON_DEPTH, KNOWN_REVISIONS, type ServerInfo } from './protocol/index.js';

export const MCP_ENDPOINT_PATH = Symbol('MCP_ENDPOINT_PATH');
/** How many guards the declaration put before the ladder (the app's authentication). */
export const MCP_DECLARED_GUARDS = Symbol('MCP_DECLARED_GUARDS');

export function normalizePath(path: string | undefined): string {
  return (path ?? 'mcp').replace(/^\/+|\/+$/g, '') || 'mcp';
}

const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_APPROVAL_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_PENDING_APPROVALS = 20;
const DEFAULT_STATE_KEY_SALT = 'mcp-state-key';

/**
 * The module's options with every default applied, computed once at bootstrap: the rest of the
 * module reads its settings here, never the raw options.
 */
@Injectable()
export class McpConfig {
  readonly path: string;
  readonly serverInfo: ServerInfo;
  readonly instructions?: string;
  /** Enabled revisions, newest first (the order of `supportedVersions` and `data.supported`). */
  readonly protocolVersions: readonly string[];
  readonly publicBaseUrl?: string;
  readonly publicOrigin?: string;
  readonly allowedOrigins: readonly string[];
  readonly bodyLimit: number;
  readonly maxJsonDepth: number;
  readonly pageSize: number;
  readonly stateKey: Buffer;
  readonly annotationDefaults: Required<McpToolAnnotationDefaults>;
  readonly destructiveTools: 'confirm' | 'refuse' | 'run';
  private validation?: ArgumentValidation;
  /** Whether the app reads the principal itself (`principal` option) rather than from `req.user`. */
  readonly customPrincipal: boolean;
  readonly authorize?: (principal: McpPrincipal | undefined, target: McpAccessRequirement) => boolean;
  readonly presentResult: (value: unknown) => unknown;
  /** Results of tools with an `outputSchema` are checked against it before they are sent. */
  readonly checkOutput: boolean;
  readonly errorBody: (exception: HttpException) => unknown;
  /** The app's request id (undefined: the `Request-Id` response header, `X-Request-Id` or a new UUID). */
  readonly requestId?: (req: Request, res: Response) => string;
  readonly protectedResource?: McpModuleOptions['protectedResource'];
  readonly legacyLogging: boolean;
  readonly legacySubscriptions: boolean;
  readonly approvalTtlMs: number;
  readonly maxPendingApprovals: number;
  readonly approvalSessionCheck?: NonNullable<McpModuleOptions['approvals']>['sessionCheck'];
  readonly describeConfirmation?: (
    tool: { name: string; title?: string },
    args: Record<string, unknown>,
    principal: McpPrincipal | undefined,
  ) => string | McpConfirmationText | Promise<string | McpConfirmationText>;
  readonly pageBrand?: PageBrand;
  readonly describeCaller?: (principal: McpPrincipal) => McpCallerDescription;
  /** `subscriptions/listen`: what is offered and over which bus (undefined: nothing, the method is unknown). */
  readonly subscriptions?: McpModuleOptions['subscriptions'];
  /** The Tasks extension's store (undefined: the extension is not offered). */
  readonly tasks?: McpModuleOptions['tasks'];
  /** Who is calling, failing closed (auth/caller-identity.ts). */
  readonly identity: CallerIdentity;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    @Inject(MCP_ENDPOINT_PATH) path: string,
    @Inject(MCP_DECLARED_GUARDS) declaredGuards: number,
    @Optional() private readonly app?: ApplicationConfig,
  ) {
    this.identity = new CallerIdentity(options.principal, declaredGuards);
    this.path = path;
    this.serverInfo = options.serverInfo;
    this.instructions = options.instructions;
    const unknown = (options.protocolVersions ?? []).filter((v) => !(KNOWN_REVISIONS as readonly string[]).includes(v));
    if (unknown.length) throw new Error(`McpModule: unknown protocol revision(s) ${unknown.join(', ')}`);
    const enabled = options.protocolVersions ?? KNOWN_REVISIONS;
    this.protocolVersions = [...enabled].sort().reverse();
    if (this.protocolVersions.length === 0) throw new Error('McpModule: protocolVersions is empty');
    this.publicBaseUrl = options.publicBaseUrl?.replace(/\/+$/, '');
    this.publicOrigin = this.publicBaseUrl ? new URL(this.publicBaseUrl).origin : undefined;
    this.allowedOrigins = (options.allowedOrigins ?? []).map((o) => new URL(o).origin);
    this.bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.stateKey = deriveKey(options.stateKey, options.stateKeySalt ?? DEFAULT_STATE_KEY_SALT);
    this.annotationDefaults = {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
      ...options.annotationDefaults,
    };
    this.destructiveTools = options.destructiveTools ?? 'confirm';
    this.customPrincipal = options.principal !== undefined;
    this.authorize = options.authorize;
    this.presentResult = options.presentResult ?? ((value) => value);
    this.checkOutput = options.checkOutput ?? true;
    this.errorBody = options.errorBody ?? ((exception) => exception.getResponse());
    this.requestId = options.requestId;
    this.protectedResource = options.protectedResource;
    this.legacyLogging = options.legacyLogging ?? false;
    this.legacySubscriptions = options.legacySubscriptions ?? false;
    this.approvalTtlMs = options.approvals?.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
    this.maxPendingApprovals = options.approvals?.maxPendingPerPrincipal ?? DEFAULT_MAX_PENDING_APPROVALS;
    this.approvalSessionCheck = options.approvals?.sessionCheck;
    this.describeConfirmation = options.describeConfirmation;
    this.pageBrand = options.pages?.brand;
    this.describeCaller = options.pages?.describeCaller;
    this.subscriptions = options.subscriptions;
    this.tasks = options.tasks;
  }

  /**
   * Tool, prompt and resource arguments are validated by this pipe: the module's option, else the
   * host's global ValidationPipe, else `{ transform: true }` (host-validation.ts). Resolved on
   * first use — at app.init, once main.ts has called useGlobalPipes — and kept.
   */
  get validationPipe(): PipeTransform {
    this.validation ??= argumentValidation(this.options, this.app);
    return this.validation.pipe;
  }

  /** The validation forbids unknown fields: published input schemas are closed (`additionalProperties: false`). */
  get closedSchemas(): boolean {
    this.validation ??= argumentValidation(this.options, this.app);
    return this.validation.closed;
  }

  /** The verified principal, or undefined for an anonymous request; throws UnidentifiedCaller when it must not go on. */
  principalOf(req: Request): McpPrincipal | undefined {
    return this.identity.of(req);
  }

  /** Absolute base URL: the configured one, else the request's own (development convenience). */
  baseUrl(req: Request): string {
    return this.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  }

  resourceMetadataUrl(req: Request): string {
    return protectedResourceMetadataUrl(this.baseUrl(req), this.path);
  }

  /** Who a request-state or an approval belongs to (default: the principal's subject). */
  principalKey(principal: McpPrincipal | undefined): string {
    if (!principal) return 'anonymous';
    return this.options.principalKey ? this.options.principalKey(principal) : principal.subject;
  }

  /** Where the pages' stylesheet and script are served; host apps use it for their own pages too. */
  get pageAssetsPath(): string {
    return `/${this.path}/pages`;
  }

  resourceUrl(req: Request): string {
    return canonicalResourceUrl(this.baseUrl(req), this.path);
  }
}

function deriveKey(secret: string | Buffer | undefined, salt: string): Buffer {
  if (secret === undefined) return randomBytes(32);
  return createHash('sha256').update(`${salt}\0`).update(secret).digest();
}
