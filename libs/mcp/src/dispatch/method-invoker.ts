import { type ArgumentMetadata, Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { ContextIdFactory, ModuleRef } from '@nestjs/core';
import type { Request } from 'express';
import type { MethodBinding } from '../discovery/method-binding.js';
import type { McpCallerProjection } from '../discovery/mcp-param.decorators.js';
import { ToolExecutionContext } from './tool-execution-context.js';
import { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import { convertingClientValues } from './converting-client-values.js';
import { isThenable } from './thenable.js';
import type { McpInputRound } from '../call/inputs.js';
import type { McpCall, McpCallContext } from '../call/mcp-call.js';

const NO_ARGS: ReadonlyMap<string, unknown> = new Map();

/** A validated, bound call of a provider's method, not yet run. */
export interface PreparedCall {
  readonly instance: Record<string, unknown>;
  readonly params: readonly unknown[];
  readonly methodName: string;
}

/**
 * Calls one decorated method: validates its flat input with the app's ValidationPipe settings,
 * binds it onto the parameters, and resolves the provider in the HTTP request's own DI sub-tree
 * when it is not a singleton. Errors propagate; each MCP method decides how to present them.
 */
@Injectable()
export class MethodInvoker {
  private readonly pipes = new Map<Type<PipeTransform>, Promise<PipeTransform>>();
  private readonly metadata = new Map<Type, ArgumentMetadata>();

  constructor(
    private readonly config: McpConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Read on use, not at construction: the host's global pipe is known only once main.ts registered it. */
  private get validation(): PipeTransform {
    return this.config.validationPipe;
  }

  /** `inputs`: the call's MRTR round (MrtrService.open), for a method that takes `@McpInputs()`. */
  async invoke(
    binding: MethodBinding,
    args: JsonObject,
    call: McpCall,
    context: Partial<McpCallContext> & { name: string },
    inputs?: McpInputRound,
  ): Promise<unknown> {
    return this.call(await this.prepare(binding, args, call, context, inputs));
  }

  /**
   * Validates and binds a call without running it: what the confirmation of a destructive tool
   * needs first (nothing is asked of a person for arguments that would be refused anyway). The
   * prepared call itself when every step answered at once (a pipe that validates in the same tick,
   * a singleton provider), else its promise: a tool call waits only for what is pending.
   */
  prepare(
    binding: MethodBinding,
    args: JsonObject,
    call: McpCall,
    context: Partial<McpCallContext> & { name: string },
    inputs?: McpInputRound,
  ): PreparedCall | PromiseLike<PreparedCall> {
    const input = binding.inputClass
      ? convertingClientValues(
          (input) => this.validation.transform(input, this.metadataOf(binding.inputClass!)) as unknown,
          { ...args },
        )
      : args;
    if (isThenable(input))
      return input.then((input) => this.prepareValidated(binding, input as JsonObject, call, context, inputs));
    return this.prepareValidated(binding, input as JsonObject, call, context, inputs);
  }

  private prepareValidated(
    binding: MethodBinding,
    input: JsonObject,
    call: McpCall,
    context: Partial<McpCallContext> & { name: string },
    inputs: McpInputRound | undefined,
  ): PreparedCall | Promise<PreparedCall> {
    if (binding.argPipes.size || binding.hostPipes) return this.preparePiped(binding, input, call, context, inputs);
    const argValues = binding.argNames.length ? this.plainArgs(binding, input) : NO_ARGS;
    const params = this.bind(binding, input, argValues, call, context, inputs);
    return this.withInstance(binding, call, params);
  }

  /** Arguments with pipes of their own, or host parameter decorators with pipes: awaited one by one. */
  private async preparePiped(
    binding: MethodBinding,
    input: JsonObject,
    call: McpCall,
    context: Partial<McpCallContext> & { name: string },
    inputs: McpInputRound | undefined,
  ): Promise<PreparedCall> {
    const argValues = binding.argPipes.size
      ? await this.pipedArgs(binding, input)
      : binding.argNames.length
        ? this.plainArgs(binding, input)
        : NO_ARGS;
    const params = this.bind(binding, input, argValues, call, context, inputs);
    if (binding.hostPipes) await this.pipeHostParams(binding, params);
    return this.withInstance(binding, call, params);
  }

  private withInstance(binding: MethodBinding, call: McpCall, params: unknown[]): PreparedCall | Promise<PreparedCall> {
    const wrapper = binding.wrapper;
    const methodName = binding.methodName;
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient)
      return { instance: wrapper.instance as Record<string, unknown>, params, methodName };
    return this.scopedInstance(binding, call.req).then((instance) => ({ instance, params, methodName }));
  }

  /** Runs a prepared call's method, or another method of the same provider with the same parameters (a preflight). */
  call(prepared: PreparedCall, methodName = prepared.methodName): unknown {
    const method = prepared.instance[methodName] as (...a: unknown[]) => unknown;
    return method.apply(prepared.instance, prepared.params as unknown[]);
  }

  /** Id-like arguments leave the DTO input: each goes to its own parameter. */
  private plainArgs(binding: MethodBinding, input: JsonObject): Map<string, unknown> {
    const argValues = new Map<string, unknown>();
    for (const name of binding.argNames) {
      argValues.set(name, input[name]);
      delete input[name];
    }
    return argValues;
  }

  private async pipedArgs(binding: MethodBinding, input: JsonObject): Promise<Map<string, unknown>> {
    const argValues = new Map<string, unknown>();
    for (const name of binding.argNames) {
      let value = input[name];
      for (const pipe of binding.argPipes.get(name) ?? []) {
        const instance = await this.pipeInstance(pipe);
        value = await convertingClientValues(
          (input) => instance.transform(input, { type: 'param', data: name }),
          value,
        );
      }
      argValues.set(name, value);
      delete input[name];
    }
    return argValues;
  }

  private bind(
    binding: MethodBinding,
    input: JsonObject,
    argValues: ReadonlyMap<string, unknown>,
    call: McpCall,
    context: Partial<McpCallContext> & { name: string },
    inputs: McpInputRound | undefined,
  ): unknown[] {
    const params = new Array<unknown>(binding.arity);
    for (const b of binding.bindings) {
      if (b.kind === 'arg') params[b.index] = argValues.get(b.name);
      else if (b.kind === 'input') params[b.index] = input;
      else if (b.kind === 'caller') params[b.index] = this.callerOf(binding, call, b.project);
      else if (b.kind === 'host') params[b.index] = b.factory(b.data, this.executionContext(binding, call));
      else if (b.kind === 'context') params[b.index] = contextOf(call, context);
      else if (b.kind === 'inputs') params[b.index] = inputs;
      else params[b.index] = call.req;
    }
    return params;
  }

  /** The caller, whole or projected; a method that takes it is never called without one (docs/security.md §Identity). */
  private callerOf(binding: MethodBinding, call: McpCall, project: McpCallerProjection | undefined): unknown {
    const principal = call.principal;
    if (!principal) throw this.config.identity.anonymousCaller(binding.location);
    if (project === undefined) return principal;
    return typeof project === 'function' ? project(principal) : principal[project];
  }

  private executionContext(binding: MethodBinding, call: McpCall): ToolExecutionContext {
    const metatype = binding.wrapper.metatype as Type;
    const handler = (metatype.prototype as Record<string, (...a: unknown[]) => unknown>)[binding.methodName]!;
    return new ToolExecutionContext(call.req, call.res, metatype, handler);
  }

  /** The pipes of the host's own parameter decorators, as Nest runs them on a route (`type: 'custom'`). */
  private async pipeHostParams(binding: MethodBinding, params: unknown[]): Promise<void> {
    const types: unknown[] =
      Reflect.getMetadata('design:paramtypes', (binding.wrapper.metatype as Type).prototype, binding.methodName) ?? [];
    for (const b of binding.bindings) {
      if (b.kind !== 'host') continue;
      let value = params[b.index];
      for (const pipe of b.pipes) {
        const metadata = { type: 'custom', data: b.data, metatype: types[b.index] } as ArgumentMetadata;
        value = await (await this.pipeInstance(pipe)).transform(value, metadata);
      }
      params[b.index] = value;
    }
  }

  private scopedInstance(binding: MethodBinding, req: Request): Promise<Record<string, unknown>> {
    // The same DI sub-tree as the HTTP request's guards and interceptors: one request, one scope.
    const contextId = ContextIdFactory.getByRequest(req);
    this.moduleRef.registerRequestByContextId(req, contextId);
    return this.moduleRef.resolve(binding.wrapper.token, contextId, { strict: false });
  }

  /** The pipe's metadata for an input class, made once per class, as Nest does for a route's parameters. */
  private metadataOf(metatype: Type): ArgumentMetadata {
    let metadata = this.metadata.get(metatype);
    if (!metadata) {
      metadata = { type: 'body', metatype };
      this.metadata.set(metatype, metadata);
    }
    return metadata;
  }

  private pipeInstance(pipe: Type<PipeTransform> | PipeTransform): Promise<PipeTransform> | PipeTransform {
    if (typeof pipe !== 'function') return pipe;
    let instance = this.pipes.get(pipe);
    if (!instance) {
      instance = this.moduleRef.create(pipe);
      this.pipes.set(pipe, instance);
    }
    return instance;
  }
}

function contextOf(call: McpCall, extra: Partial<McpCallContext> & { name: string }): McpCallContext {
  const era = call.era;
  return {
    requestId: call.requestId,
    era: era.era,
    protocolVersion: era.revision,
    toolName: extra.name,
    ...extra,
    ...(era.era === 'modern' ? { clientCapabilities: era.clientCapabilities, clientInfo: era.clientInfo } : {}),
  };
}
