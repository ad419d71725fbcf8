import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { McpContent } from '../call/tool-result.js';
import { McpConfig } from '../mcp-config.js';
import { type ParamHeader, paramHeadersOf } from '../protocol/index.js';
import { DtoSchemaBuilder } from './dto-schema.js';
import { bindMethod, type MethodBinding } from './method-binding.js';
import { toolUiMeta } from './mcp-app.js';
import { MCP_TOOL_METADATA, type McpToolOptions } from './mcp-tool.decorator.js';
import { type OutputContract, outputContract, outputDtoOf } from './output-contract.js';
import { checkPreflight } from './preflight-binding.js';
import { scanDecoratedMethods } from './scan-providers.js';

export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface RegisteredTool extends MethodBinding {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly annotations: ToolAnnotations;
  /** The `tools/list` entry, built once, on first use (with `_meta.ui` when the tool has an app). */
  readonly listing: Readonly<Record<string, unknown>>;
  /** The entry for a client that does not render apps: the same tool without the UI metadata. */
  readonly plainListing: Readonly<Record<string, unknown>>;
  /** The `ui://` resource of the tool's app (`@McpTool({ ui })`). */
  readonly uiResource?: string;
  readonly resourceLinks?: (value: unknown) => McpContent[];
  /** Method of the same provider run before a destructive tool's confirmation (`@McpTool({ preflight })`). */
  readonly preflight?: string;
  /** Whether the tool may (`optional`) or must (`required`) answer with a task (`@McpTool({ task })`). */
  readonly task?: 'optional' | 'required';
  /** Arguments mirrored into `Mcp-Param-*` headers (x-mcp-header), checked by HeaderMatchGuard. */
  readonly paramHeaders: readonly ParamHeader[];
  /** The declared `outputSchema` and its check: results then carry `structuredContent`. */
  readonly output?: OutputContract;
}

/**
 * Finds every `@McpTool` method on the app's providers once, at bootstrap, and precomputes what
 * a request needs: the input class, the JSON Schema and the listing entry.
 */
@Injectable()
export class McpToolRegistry implements OnModuleInit {
  private readonly byName = new Map<string, RegisteredTool>();
  private ordered: RegisteredTool[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly config: McpConfig,
  ) {}

  onModuleInit(): void {
    const schemas = new DtoSchemaBuilder();
    const closed = this.config.closedSchemas;
    for (const method of scanDecoratedMethods<McpToolOptions>(this.discovery, this.scanner, MCP_TOOL_METADATA)) {
      const options = method.options;
      const location = `${method.metatype.name}.${method.methodName}`;
      if (!TOOL_NAME_PATTERN.test(options.name)) {
        throw new Error(`@McpTool name '${options.name}' on ${location} must match ${TOOL_NAME_PATTERN}`);
      }
      const existing = this.byName.get(options.name);
      if (existing)
        throw new Error(
          `@McpTool name '${options.name}' is declared twice: on ${existing.location} and on ${location}`,
        );
      const binding = bindMethod(method, schemas, {
        label: 'tool',
        name: options.name,
        closed,
        rawInputSchema: options.rawInputSchema,
        extraSchema: options.inputSchema,
      });
      const dto = outputDtoOf(options.output, methodOf(binding));
      const output = outputContract(schemas, dto, options.outputSchema, this.config.checkOutput);
      this.byName.set(options.name, this.describe(binding, options, output));
    }
    this.ordered = [...this.byName.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  all(): readonly RegisteredTool[] {
    return this.ordered;
  }

  private paramHeaders(binding: MethodBinding, name: string): ParamHeader[] {
    try {
      return paramHeadersOf(binding.inputSchema);
    } catch (error) {
      throw new Error(`tool '${name}' on ${binding.location}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The preflight's method name: given as a name (deprecated) or as the method itself, found on the provider's prototype chain. */
  private preflightOf(binding: MethodBinding, options: McpToolOptions): string {
    const given = options.preflight!;
    const metatype = binding.wrapper.metatype as { prototype?: Record<string, unknown> } | null;
    const name = typeof given === 'string' ? given : methodNameOf(metatype?.prototype, given);
    if (name === undefined || typeof metatype?.prototype?.[name] !== 'function') {
      const shown = typeof given === 'string' ? `'${given}'` : given.name || '(an anonymous function)';
      throw new Error(
        `@McpTool '${options.name}' on ${binding.location}: preflight ${shown} is not a method of the same provider (${binding.location.split('.')[0]})`,
      );
    }
    checkPreflight(binding, options.name, name);
    return name;
  }

  private describe(binding: MethodBinding, options: McpToolOptions, output?: OutputContract): RegisteredTool {
    const d = this.config.annotationDefaults;
    const given = options.annotations ?? {};
    const title = options.title ?? given.title;
    const annotations: ToolAnnotations = {
      ...(title ? { title } : {}),
      readOnlyHint: given.readOnlyHint ?? d.readOnlyHint,
      destructiveHint: given.destructiveHint ?? d.destructiveHint,
      idempotentHint: given.idempotentHint ?? d.idempotentHint,
      openWorldHint: given.openWorldHint ?? d.openWorldHint,
    };
    const ui = options.ui === undefined ? undefined : toolUiMeta(options.ui);
    // Built on the first `tools/list`, then kept: the output schema is made on first use (output-contract.ts).
    let listing: Record<string, unknown> | undefined;
    const plainListing = (): Record<string, unknown> =>
      (listing ??= {
        name: options.name,
        ...(title ? { title } : {}),
        description: options.description,
        inputSchema: binding.inputSchema,
        ...(output ? { outputSchema: output.schema } : {}),
        annotations,
      });
    let uiListing: Record<string, unknown> | undefined;
    return {
      ...binding,
      name: options.name,
      scopes: [...(options.scopes ?? [])],
      roles: [...(options.roles ?? [])],
      annotations,
      get listing() {
        return ui ? (uiListing ??= { ...plainListing(), _meta: ui.meta }) : plainListing();
      },
      get plainListing() {
        return plainListing();
      },
      ...(ui ? { uiResource: ui.resourceUri } : {}),
      ...(options.resourceLinks ? { resourceLinks: options.resourceLinks } : {}),
      ...(options.task ? { task: options.task } : {}),
      ...(options.preflight ? { preflight: this.preflightOf(binding, options) } : {}),
      paramHeaders: this.paramHeaders(binding, options.name),
      ...(output ? { output } : {}),
    };
  }
}

function methodOf(binding: MethodBinding): object {
  const prototype = (binding.wrapper.metatype as { prototype: Record<string, object> }).prototype;
  return prototype[binding.methodName]!;
}

/** The name under which `method` is found on `prototype` or the classes it extends. */
function methodNameOf(prototype: object | undefined, method: unknown): string | undefined {
  for (let p = prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | undefined) {
    const name = Object.getOwnPropertyNames(p).find((key) => key !== 'constructor' && readOwn(p!, key) === method);
    if (name) return name;
  }
  return undefined;
}

/** A data property's value (never runs a getter of the prototype). */
function readOwn(target: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(target, key)?.value;
}
