import type { PipeTransform, Type } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';

export const MCP_PARAMS_METADATA = 'mcp:params';

export interface McpArgOptions {
  description?: string;
  /** Default true. An optional argument is `undefined` when absent. */
  required?: boolean;
  /**
   * Property decorators (class-validator, class-transformer, `@JSONSchema`) that validate and
   * describe this argument, exactly as on a DTO property. Without them the parameter's TypeScript
   * type decides: string → `@IsString()`, number → `@IsNumber()`, boolean → `@IsBoolean()`.
   */
  validators?: PropertyDecorator[];
  /** Pipes run on the validated value, as on the REST route's `@Param(…, Pipe)`. */
  pipes?: (Type<PipeTransform> | PipeTransform)[];
}

export type McpParamBinding =
  | { readonly index: number; readonly kind: 'arg'; readonly name: string; readonly options: McpArgOptions }
  | { readonly index: number; readonly kind: 'input' }
  | { readonly index: number; readonly kind: 'caller'; readonly project?: McpCallerProjection }
  | { readonly index: number; readonly kind: 'context' }
  | { readonly index: number; readonly kind: 'request' }
  | { readonly index: number; readonly kind: 'inputs' }
  /** The host's own `createParamDecorator` decorator (e.g. `@CurrentUser()`), resolved against the same request. */
  | {
      readonly index: number;
      readonly kind: 'host';
      readonly factory: (data: unknown, context: unknown) => unknown;
      readonly data: unknown;
      readonly pipes: readonly (Type<PipeTransform> | PipeTransform)[];
    };

/** What `@McpCaller(…)` gives the parameter: one claim of the principal by name, or what a function makes of it. */
export type McpCallerProjection = string | ((principal: McpPrincipal) => unknown);

function bind(binding: McpParamBinding): ParameterDecorator {
  return (target, key) => {
    if (key === undefined) throw new Error('MCP parameter decorators go on methods, not constructors');
    const list: McpParamBinding[] = Reflect.getOwnMetadata(MCP_PARAMS_METADATA, target, key) ?? [];
    Reflect.defineMetadata(MCP_PARAMS_METADATA, [...list, binding], target, key);
  };
}

/** One named field of the tool's flat input (snake_case by convention), e.g. `@McpArg('task_id') taskId: string`. */
export const McpArg =
  (name: string, options: McpArgOptions = {}): ParameterDecorator =>
  (target, key, index) =>
    bind({ index, kind: 'arg', name, options })(target, key, index);

/** The DTO parameter: its fields join the tool's flat input, validated by the app's ValidationPipe settings. */
export const McpInput = (): ParameterDecorator => (target, key, index) =>
  bind({ index, kind: 'input' })(target, key, index);

/**
 * The verified principal from the app's authentication guard, never from the arguments — whole, or
 * projected so that an existing signature stays as it is: `@McpCaller('subject') ownerId: string`,
 * `@McpCaller((p: AppPrincipal) => p.user.id) ownerId: string`. A request without a principal never
 * reaches a method that takes the caller (docs/security.md §Identity).
 */
export function McpCaller(): ParameterDecorator;
export function McpCaller(claim: string): ParameterDecorator;
export function McpCaller<P extends McpPrincipal = McpPrincipal>(
  project: (principal: P) => unknown,
): ParameterDecorator;
export function McpCaller(project?: string | ((principal: never) => unknown)): ParameterDecorator {
  const binding = project === undefined ? {} : { project: project as McpCallerProjection };
  return (target, key, index) => bind({ index, kind: 'caller', ...binding })(target, key, index);
}

/** The call context (request id, era, client info, idempotency of the call). */
export const McpContext = (): ParameterDecorator => (target, key, index) =>
  bind({ index, kind: 'context' })(target, key, index);

/** The real HTTP request that carried the MCP message. */
export const McpHttpRequest = (): ParameterDecorator => (target, key, index) =>
  bind({ index, kind: 'request' })(target, key, index);

/**
 * The multi-round-trip context (2026 era): answers to what the handler asked before, its state
 * from that round, and `require()` to ask the client for input (elicitation, sampling, roots).
 */
export const McpInputs = (): ParameterDecorator => (target, key, index) =>
  bind({ index, kind: 'inputs' })(target, key, index);
