import { Inject, Injectable, Optional, type PipeTransform } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import type { Request } from 'express';
import { canonicalResourceUrl, protectedResourceMetadataUrl } from './auth/bearer-challenge.js';
import { CallerIdentity } from './auth/caller-identity.js';
import { type ArgumentValidation, argumentValidation } from './host-validation.js';
import type { McpPrincipal } from './auth/principal.js';
import { MCP_SETTINGS, type McpSettings } from './settings/mcp-settings.js';

export const MCP_ENDPOINT_PATH = Symbol('MCP_ENDPOINT_PATH');
/** How many guards the declaration put before the ladder (the app's authentication). */
export const MCP_DECLARED_GUARDS = Symbol('MCP_DECLARED_GUARDS');

export function normalizePath(path: string | undefined): string {
  return (path ?? 'mcp').replace(/^\/+|\/+$/g, '') || 'mcp';
}

/**
 * The settings flattened, for the readers across the module (`config.pageSize`, `config.stateKey`):
 * the groups the settings hold, spread. Listen settings and argument validation stay in their
 * groups (`settings.listen`, `settings.arguments`).
 */
type FlatSettings = McpSettings['endpoint'] &
  McpSettings['callers'] &
  McpSettings['catalog'] &
  McpSettings['errors'] &
  McpSettings['state'] &
  McpSettings['confirmation'] &
  McpSettings['extensions'];

/** Instances carry the members of the flattened groups, assigned once (nothing copied by hand). */
const FlatSettingsBase = class {
  constructor(settings: McpSettings) {
    const { endpoint, callers, catalog, errors, state, confirmation, extensions } = settings;
    Object.assign(this, endpoint, callers, catalog, errors, state, confirmation, extensions);
  }
} as new (settings: McpSettings) => FlatSettings;

/**
 * The module's settings (resolveOptions, settings/resolve-options.ts — the only reader of the raw
 * options) for the endpoint at `path`, with what needs the request or the host: who is calling,
 * the URLs derived from the request, the argument validation. Computed once at bootstrap.
 */
@Injectable()
export class McpConfig extends FlatSettingsBase {
  readonly path: string;
  /** Who is calling, failing closed (auth/caller-identity.ts). */
  readonly identity: CallerIdentity;
  private validation?: ArgumentValidation;

  constructor(
    @Inject(MCP_SETTINGS) readonly settings: McpSettings,
    @Inject(MCP_ENDPOINT_PATH) path: string,
    @Inject(MCP_DECLARED_GUARDS) declaredGuards: number,
    @Optional() private readonly app?: ApplicationConfig,
  ) {
    super(settings);
    this.path = path;
    this.identity = new CallerIdentity(settings.callers.principal, declaredGuards);
  }

  /**
   * Tool, prompt and resource arguments are validated by this pipe: the module's option, else the
   * host's global ValidationPipe, else `{ transform: true }` (host-validation.ts). Resolved on
   * first use — at app.init, once main.ts has called useGlobalPipes — and kept.
   */
  get validationPipe(): PipeTransform {
    this.validation ??= argumentValidation(this.settings.arguments, this.app);
    return this.validation.pipe;
  }

  /** The validation forbids unknown fields: published input schemas are closed (`additionalProperties: false`). */
  get closedSchemas(): boolean {
    this.validation ??= argumentValidation(this.settings.arguments, this.app);
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

  /** Where the pages' stylesheet and script are served; host apps use it for their own pages too. */
  get pageAssetsPath(): string {
    return `/${this.path}/pages`;
  }

  resourceUrl(req: Request): string {
    return canonicalResourceUrl(this.baseUrl(req), this.path);
  }
}
