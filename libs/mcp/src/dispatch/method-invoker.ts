import { Injectable, type PipeTransform, type Type, ValidationPipe } from '@nestjs/common';
import { ContextIdFactory, ModuleRef } from '@nestjs/core';
import type { Request } from 'express';
import type { MethodBinding } from '../discovery/method-binding.js';
import { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import type { McpCall, McpCallContext } from './mcp-call.js';

/**
 * Calls one decorated method: validates its flat input with the app's ValidationPipe settings,
 * binds it onto the parameters, and resolves the provider in the HTTP request's own DI sub-tree
 * when it is not a singleton. Errors propagate; each MCP method decides how to present them.
 */
@Injectable()
export class MethodInvoker {
  private readonly validation: ValidationPipe;
  private readonly pipes = new Map<Type<PipeTransform>, Promise<PipeTransform>>();

  constructor(
    private readonly config: McpConfig,
    private readonly moduleRef: ModuleRef,
  ) {
    this.validation = new ValidationPipe(config.options.validation ?? { transform: true });
  }

  async invoke(binding: MethodBinding, args: JsonObject, call: McpCall, context: Partial<McpCallContext> & { name: string }): Promise<unknown> {
    const input = binding.inputClass
      ? ((await this.validation.transform({ ...args }, { type: 'body', metatype: binding.inputClass })) as JsonObject)
      : args;
    const params = await this.bind(binding, input, call, context);
    const instance = await this.instanceFor(binding, call.req);
    const method = instance[binding.methodName] as (...a: unknown[]) => unknown;
    return method.apply(instance, params);
  }

  private async bind(binding: MethodBinding, input: JsonObject, call: McpCall, context: Partial<McpCallContext> & { name: string }): Promise<unknown[]> {
    const params = new Array<unknown>(binding.arity);
    const argValues = new Map<string, unknown>();
    for (const name of binding.argNames) {
      let value = input[name];
      for (const pipe of binding.argPipes.get(name) ?? []) {
        value = await (await this.pipeInstance(pipe)).transform(value, { type: 'param', data: name });
      }
      argValues.set(name, value);
      delete input[name];
    }
    for (const b of binding.bindings) {
      if (b.kind === 'arg') params[b.index] = argValues.get(b.name);
      else if (b.kind === 'input') params[b.index] = input;
      else if (b.kind === 'caller') params[b.index] = call.principal;
      else if (b.kind === 'context') params[b.index] = contextOf(call, context);
      else if (b.kind === 'inputs') params[b.index] = call.inputs;
      else params[b.index] = call.req;
    }
    return params;
  }

  private async instanceFor(binding: MethodBinding, req: Request): Promise<Record<string, unknown>> {
    const wrapper = binding.wrapper;
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) return wrapper.instance as Record<string, unknown>;
    // The same DI sub-tree as the HTTP request's guards and interceptors: one request, one scope.
    const contextId = ContextIdFactory.getByRequest(req);
    this.moduleRef.registerRequestByContextId(req, contextId);
    return this.moduleRef.resolve(wrapper.token, contextId, { strict: false });
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
