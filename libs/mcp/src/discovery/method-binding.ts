import type { PipeTransform, Type } from '@nestjs/common';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { callerTypeMismatch } from './caller-param-type.js';
import { DtoSchemaBuilder } from './dto-schema.js';
import { hostParamBindings } from './host-param-decorators.js';
import { MCP_PARAMS_METADATA, type McpParamBinding } from './mcp-param.decorators.js';
import type { DecoratedMethod } from './scan-providers.js';
import { type ArgSpec, buildToolInputClass } from './tool-input-class.js';

/** How one decorated method is called: built once at bootstrap, shared by tools, resources, prompts, completions. */
export interface MethodBinding {
  readonly wrapper: InstanceWrapper;
  readonly methodName: string;
  /** `Class.method`, for messages. */
  readonly location: string;
  readonly bindings: readonly McpParamBinding[];
  /** Whether a host parameter decorator (`createParamDecorator`) carries pipes: the binding then awaits them. */
  readonly hostPipes: boolean;
  readonly arity: number;
  readonly argNames: readonly string[];
  readonly argPipes: ReadonlyMap<string, readonly (Type<PipeTransform> | PipeTransform)[]>;
  /** Validates the flat input in one ValidationPipe pass (absent when the method takes no validated input). */
  readonly inputClass?: Type;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface BindingOptions {
  /** What the method is exposed as, for messages and the input class name (e.g. "tool 'x'"). */
  readonly label: string;
  readonly name: string;
  readonly closed: boolean;
  /** A schema served verbatim instead of the generated one; arguments are then not validated by the module. */
  readonly rawInputSchema?: Record<string, unknown>;
  readonly extraSchema?: Record<string, unknown>;
}

/**
 * The MCP decorators and the host's own parameter decorators of one method, one per parameter.
 * Exported for the preflight check, which compares a preflight's parameters with its tool's.
 */
export function parameterBindings(metatype: Type, methodName: string, where: string): McpParamBinding[] {
  const mcp: McpParamBinding[] = Reflect.getMetadata(MCP_PARAMS_METADATA, metatype.prototype, methodName) ?? [];
  const bindings = [...mcp, ...hostParamBindings(metatype, methodName, where)];
  const seen = new Set<number>();
  for (const b of bindings) {
    if (seen.has(b.index))
      throw new Error(`parameter #${b.index + 1} of ${where} has more than one parameter decorator`);
    seen.add(b.index);
  }
  return bindings;
}

/** Every parameter has a decorator, and each `@McpCaller` parameter's type fits its projection. */
function checkParameters(where: string, count: number, types: unknown[], bindings: McpParamBinding[]): void {
  const bound = new Set(bindings.map((b) => b.index));
  for (let i = 0; i < count; i++) {
    if (!bound.has(i)) {
      throw new Error(
        `parameter #${i + 1} of ${where} has no MCP parameter decorator (@McpArg, @McpInput, @McpCaller, @McpContext, @McpInputs or @McpHttpRequest) nor one of the app's own (createParamDecorator)`,
      );
    }
  }
  for (const b of bindings) {
    const mismatch = b.kind === 'caller' ? callerTypeMismatch(b.project, types[b.index]) : undefined;
    if (mismatch) throw new Error(`parameter #${b.index + 1} of ${where}: ${mismatch}`);
  }
}

export function bindMethod(
  method: DecoratedMethod<unknown>,
  schemas: DtoSchemaBuilder,
  options: BindingOptions,
): MethodBinding {
  const { wrapper, metatype, methodName } = method;
  const location = `${metatype.name}.${methodName}`;
  const where = `${location} (${options.label})`;
  const arity = (metatype.prototype[methodName] as (...a: unknown[]) => unknown).length;
  const bindings = parameterBindings(metatype, methodName, where);
  const types: unknown[] = Reflect.getMetadata('design:paramtypes', metatype.prototype, methodName) ?? [];
  checkParameters(where, Math.max(arity, types.length), types, bindings);
  const inputs = bindings.filter((b) => b.kind === 'input');
  if (inputs.length > 1) throw new Error(`${where} has more than one @McpInput parameter`);
  const dto = inputs[0] ? (types[inputs[0].index] as Type | undefined) : undefined;
  if (inputs[0] && (typeof dto !== 'function' || dto === Object))
    throw new Error(`the @McpInput parameter of ${where} needs a DTO class type`);
  const args: ArgSpec[] = [];
  const argPipes = new Map<string, (Type<PipeTransform> | PipeTransform)[]>();
  for (const b of bindings) {
    if (b.kind !== 'arg') continue;
    if (args.some((a) => a.name === b.name)) throw new Error(`${where} binds argument '${b.name}' twice`);
    args.push({ name: b.name, type: types[b.index], options: b.options });
    if (b.options.pipes?.length) argPipes.set(b.name, b.options.pipes);
  }
  if (dto && !options.rawInputSchema) {
    const fields = Object.keys((schemas.build(dto) as { properties?: object }).properties ?? {});
    const clash = args.find((a) => fields.includes(a.name));
    if (clash) throw new Error(`${where}: @McpArg('${clash.name}') collides with a field of ${dto.name}`);
  }
  const inputClass = options.rawInputSchema
    ? undefined
    : buildToolInputClass(`${options.label}_${options.name}`, dto, args);
  const inputSchema = options.rawInputSchema ?? {
    ...schemas.build(inputClass as Type, options.closed),
    ...options.extraSchema,
  };
  return {
    wrapper,
    methodName,
    location,
    bindings,
    hostPipes: bindings.some((b) => b.kind === 'host' && b.pipes.length > 0),
    arity,
    argNames: args.map((a) => a.name),
    argPipes,
    inputClass,
    inputSchema,
  };
}
