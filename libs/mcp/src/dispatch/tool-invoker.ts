import {
  HttpException,
  Injectable,
  Logger,
  type PipeTransform,
  type Type,
  ValidationPipe,
} from '@nestjs/common';
import { ContextIdFactory, ModuleRef } from '@nestjs/core';
import type { Request } from 'express';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import { McpRejectionError } from '../http/send.js';
import { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import type { McpCall, McpCallContext } from './mcp-call.js';
import { McpToolResult } from './tool-result.js';

/**
 * Runs one tool: validates the flat input with the app's ValidationPipe settings, binds it onto the
 * method's parameters, resolves the provider in the HTTP request's own DI sub-tree when it is not a
 * singleton, and turns the outcome into a CallToolResult. Errors the caller can act on (4xx) come
 * back as `isError` with the REST API's own error body; anything else is logged and masked.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('McpTools');
  private readonly validation: ValidationPipe;
  private readonly pipes = new Map<Type<PipeTransform>, Promise<PipeTransform>>();

  constructor(
    private readonly config: McpConfig,
    private readonly moduleRef: ModuleRef,
  ) {
    this.validation = new ValidationPipe(config.options.validation ?? { transform: true });
  }

  async invoke(tool: RegisteredTool, args: JsonObject, call: McpCall): Promise<JsonObject> {
    try {
      const input = tool.inputClass
        ? ((await this.validation.transform({ ...args }, { type: 'body', metatype: tool.inputClass })) as JsonObject)
        : args;
      const params = await this.bind(tool, input, call);
      const instance = await this.instanceFor(tool, call.req);
      const method = instance[tool.methodName] as (...a: unknown[]) => unknown;
      return this.present(await method.apply(instance, params));
    } catch (error) {
      return this.failure(error, tool, call);
    }
  }

  private async bind(tool: RegisteredTool, input: JsonObject, call: McpCall): Promise<unknown[]> {
    const params = new Array<unknown>(tool.arity);
    const argValues = new Map<string, unknown>();
    for (const name of tool.argNames) {
      let value = input[name];
      for (const pipe of tool.argPipes.get(name) ?? []) {
        value = await (await this.pipeInstance(pipe)).transform(value, { type: 'param', data: name });
      }
      argValues.set(name, value);
      delete input[name];
    }
    for (const binding of tool.bindings) {
      switch (binding.kind) {
        case 'arg':
          params[binding.index] = argValues.get(binding.name);
          break;
        case 'input':
          params[binding.index] = input;
          break;
        case 'caller':
          params[binding.index] = call.principal;
          break;
        case 'context':
          params[binding.index] = contextOf(tool, call);
          break;
        case 'request':
          params[binding.index] = call.req;
          break;
      }
    }
    return params;
  }

  private async instanceFor(tool: RegisteredTool, req: Request): Promise<Record<string, unknown>> {
    const wrapper = tool.wrapper;
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

  private present(value: unknown): JsonObject {
    if (value instanceof McpToolResult) return value.toResult();
    const presented = this.config.options.presentResult ? this.config.options.presentResult(value) : value;
    if (presented === undefined) return { content: [] };
    return { content: [{ type: 'text', text: JSON.stringify(presented) }] };
  }

  private failure(error: unknown, tool: RegisteredTool, call: McpCall): JsonObject {
    if (error instanceof McpRejectionError) throw error;
    if (error instanceof HttpException && error.getStatus() < 500) {
      const body = this.config.options.errorBody ? this.config.options.errorBody(error) : error.getResponse();
      return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
    }
    this.logger.error(
      `tool ${tool.name} failed (request ${call.requestId}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    const body = {
      error: {
        code: 'internal_error',
        message: `The tool failed unexpectedly. Quote request id ${call.requestId} to the operator.`,
        request_id: call.requestId,
      },
    };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
  }
}

function contextOf(tool: RegisteredTool, call: McpCall): McpCallContext {
  const era = call.era;
  return {
    requestId: call.requestId,
    era: era.era,
    protocolVersion: era.revision,
    toolName: tool.name,
    ...(era.era === 'modern' ? { clientCapabilities: era.clientCapabilities, clientInfo: era.clientInfo } : {}),
  };
}
