import { Injectable, type OnModuleInit, type PipeTransform, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpConfig } from '../mcp-config.js';
import { DtoSchemaBuilder } from './dto-schema.js';
import { MCP_PARAMS_METADATA, type McpParamBinding } from './mcp-param.decorators.js';
import { MCP_TOOL_METADATA, type McpToolOptions } from './mcp-tool.decorator.js';
import { type ArgSpec, buildToolInputClass } from './tool-input-class.js';

export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface RegisteredTool {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly annotations: ToolAnnotations;
  /** The `tools/list` entry, built once. */
  readonly listing: Readonly<Record<string, unknown>>;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Validates the flat input in one ValidationPipe pass (absent with `rawInputSchema`). */
  readonly inputClass?: Type;
  readonly argNames: readonly string[];
  readonly argPipes: ReadonlyMap<string, readonly (Type<PipeTransform> | PipeTransform)[]>;
  readonly bindings: readonly McpParamBinding[];
  readonly arity: number;
  readonly wrapper: InstanceWrapper;
  readonly methodName: string;
  /** `Class.method`, for messages. */
  readonly location: string;
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
    const closed = this.config.options.validation?.forbidNonWhitelisted === true;
    for (const wrapper of this.discovery.getProviders()) {
      // Class providers only: factory and value providers have no methods to annotate.
      const metatype = wrapper.metatype;
      if (wrapper.isAlias || wrapper.inject || typeof metatype !== 'function' || !metatype.prototype) continue;
      const proto = metatype.prototype as Record<string, unknown>;
      for (const methodName of this.scanner.getAllMethodNames(proto)) {
        const method = proto[methodName];
        if (typeof method !== 'function') continue;
        const options: McpToolOptions | undefined = Reflect.getMetadata(MCP_TOOL_METADATA, method);
        if (!options) continue;
        this.add(this.register(wrapper, metatype as Type, methodName, options, schemas, closed));
      }
    }
    this.ordered = [...this.byName.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  all(): readonly RegisteredTool[] {
    return this.ordered;
  }

  private add(tool: RegisteredTool): void {
    const existing = this.byName.get(tool.name);
    if (existing) {
      throw new Error(`@McpTool name '${tool.name}' is declared twice: on ${existing.location} and on ${tool.location}`);
    }
    this.byName.set(tool.name, tool);
  }

  private register(
    wrapper: InstanceWrapper,
    metatype: Type,
    methodName: string,
    options: McpToolOptions,
    schemas: DtoSchemaBuilder,
    closed: boolean,
  ): RegisteredTool {
    const location = `${metatype.name}.${methodName}`;
    if (!TOOL_NAME_PATTERN.test(options.name)) {
      throw new Error(`@McpTool name '${options.name}' on ${location} must match ${TOOL_NAME_PATTERN}`);
    }
    const arity = (metatype.prototype[methodName] as (...a: unknown[]) => unknown).length;
    const bindings: McpParamBinding[] = Reflect.getMetadata(MCP_PARAMS_METADATA, metatype.prototype, methodName) ?? [];
    const types: unknown[] = Reflect.getMetadata('design:paramtypes', metatype.prototype, methodName) ?? [];
    const bound = new Set(bindings.map((b) => b.index));
    for (let i = 0; i < Math.max(arity, types.length); i++) {
      if (!bound.has(i)) {
        throw new Error(`parameter #${i + 1} of ${location} (tool '${options.name}') has no MCP parameter decorator (@McpArg, @McpInput, @McpCaller, @McpContext or @McpHttpRequest)`);
      }
    }
    const inputs = bindings.filter((b) => b.kind === 'input');
    if (inputs.length > 1) throw new Error(`${location} (tool '${options.name}') has more than one @McpInput parameter`);
    const dto = inputs[0] ? (types[inputs[0].index] as Type | undefined) : undefined;
    if (inputs[0] && (typeof dto !== 'function' || dto === Object)) {
      throw new Error(`the @McpInput parameter of ${location} needs a DTO class type`);
    }
    const args: ArgSpec[] = [];
    const argPipes = new Map<string, (Type<PipeTransform> | PipeTransform)[]>();
    for (const b of bindings) {
      if (b.kind !== 'arg') continue;
      if (args.some((a) => a.name === b.name)) throw new Error(`${location} binds argument '${b.name}' twice`);
      args.push({ name: b.name, type: types[b.index], options: b.options });
      if (b.options.pipes?.length) argPipes.set(b.name, b.options.pipes);
    }
    const inputClass = options.rawInputSchema ? undefined : buildToolInputClass(options.name, dto, args);
    const inputSchema = options.rawInputSchema ?? { ...schemas.build(inputClass as Type, closed), ...options.inputSchema };
    if (dto && !options.rawInputSchema) {
      const dtoFields = Object.keys((schemas.build(dto) as { properties?: object }).properties ?? {});
      const clash = args.find((a) => dtoFields.includes(a.name));
      if (clash) throw new Error(`${location}: @McpArg('${clash.name}') collides with a field of ${dto.name}`);
    }
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
    const listing: Record<string, unknown> = {
      name: options.name,
      ...(title ? { title } : {}),
      description: options.description,
      inputSchema,
      ...(options.outputSchema ? { outputSchema: options.outputSchema } : {}),
      annotations,
    };
    return {
      name: options.name,
      scopes: [...(options.scopes ?? [])],
      roles: [...(options.roles ?? [])],
      annotations,
      listing,
      inputSchema,
      inputClass,
      argNames: args.map((a) => a.name),
      argPipes,
      bindings,
      arity,
      wrapper,
      methodName,
      location,
    };
  }
}
