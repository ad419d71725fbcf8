import { randomBytes, createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { canonicalResourceUrl, protectedResourceMetadataUrl } from './auth/bearer-challenge.js';
import { isMcpPrincipal, type McpPrincipal } from './auth/principal.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions, type McpToolAnnotationDefaults } from './mcp.options.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_JSON_DEPTH, KNOWN_REVISIONS, type ServerInfo } from './protocol/index.js';

export const MCP_ENDPOINT_PATH = Symbol('MCP_ENDPOINT_PATH');
/** How many guards the declaration put before the ladder (the app's authentication). */
export const MCP_DECLARED_GUARDS = Symbol('MCP_DECLARED_GUARDS');

export function normalizePath(path: string | undefined): string {
  return (path ?? 'mcp').replace(/^\/+|\/+$/g, '') || 'mcp';
}

/** The module's options with every default applied, computed once at bootstrap. */
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

  constructor(
    @Inject(MCP_MODULE_OPTIONS) readonly options: McpModuleOptions,
    @Inject(MCP_ENDPOINT_PATH) path: string,
  ) {
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
    this.pageSize = options.pageSize ?? 100;
    this.stateKey = deriveKey(options.stateKey);
    this.annotationDefaults = {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
      ...options.annotationDefaults,
    };
    this.destructiveTools = options.destructiveTools ?? 'confirm';
  }

  principalOf(req: Request): McpPrincipal | undefined {
    const value = this.options.principal ? this.options.principal(req) : (req as Request & { user?: unknown }).user;
    return isMcpPrincipal(value) ? value : undefined;
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

function deriveKey(secret: string | Buffer | undefined): Buffer {
  if (secret === undefined) return randomBytes(32);
  return createHash('sha256').update('kadu-mcp-state-key\0').update(secret).digest();
}
