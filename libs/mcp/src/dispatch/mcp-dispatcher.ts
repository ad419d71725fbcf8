import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { McpExchange } from '../http/exchange.js';
import { requestIdOf } from '../http/request-id.js';
import { McpRejectionError } from '../http/send.js';
import { McpConfig } from '../mcp-config.js';
import {
  adaptResponseForLegacyClient,
  adaptResultForModernClient,
  encodedOf,
  methodNotFound,
  type Rejection,
  serializeSuccess,
  successHead,
  successTail,
} from '../protocol/index.js';
import { CompletionMethods } from './completion.methods.js';
import { LifecycleMethods } from './lifecycle.methods.js';
import { type McpCall, type McpMethodHandler, STREAM_OPENED } from './mcp-call.js';
import { ListenMethods } from '../subscriptions/listen.handler.js';
import { PromptMethods } from './prompt.methods.js';
import { ResourceMethods } from './resource.methods.js';
import { ToolMethods } from './tool.methods.js';

/**
 * `body`: the JSON text, or its bytes in parts (a shared result's pre-encoded tail after the id).
 * `toolError`: a `tools/call` whose result says `isError` (the telemetry's `tool_error`).
 * `streamed`: the handler answered with an SSE stream it keeps writing (subscriptions/listen).
 */
export type DispatchOutcome = { status: 200; body: string | readonly Buffer[]; toolError?: boolean } | { rejection: Rejection } | { streamed: true };

/** Routes one request that passed the ladder to its method handler and adapts the result to the era. */
@Injectable()
export class McpDispatcher {
  private readonly handlers = new Map<string, McpMethodHandler>();

  constructor(
    private readonly config: McpConfig,
    lifecycle: LifecycleMethods,
    tools: ToolMethods,
    resources: ResourceMethods,
    prompts: PromptMethods,
    completions: CompletionMethods,
    listen: ListenMethods,
  ) {
    const groups = [lifecycle, tools, resources, prompts, completions, listen];
    for (const handler of groups.flatMap((group) => group.handlers())) {
      this.handlers.set(handler.method, handler);
    }
  }

  /** Lets other parts of the module (resources, prompts…) replace a method's handler. */
  register(handler: McpMethodHandler): void {
    this.handlers.set(handler.method, handler);
  }

  async dispatch(exchange: Required<Pick<McpExchange, 'message' | 'era'>>, req: Request, res: Response): Promise<DispatchOutcome> {
    const { message, era } = exchange;
    const id = message.id!;
    const handler = this.handlers.get(message.method);
    if (!handler || !handler.eras.includes(era.era)) {
      return { rejection: methodNotFound(id, message.method, era.era === 'modern') };
    }
    const requestIdFn = this.config.options.requestId;
    const call: McpCall = {
      id,
      method: message.method,
      params: message.params ?? {},
      era,
      principal: this.config.principalOf(req),
      // Only logs and generic errors need it: computed on first use.
      get requestId() {
        return requestIdOf(req, res, requestIdFn);
      },
      req,
      res,
    };
    try {
      const result = await handler.handle(call);
      if (result === STREAM_OPENED) return { streamed: true };
      const encoded = encodedOf(result);
      if (encoded) {
        // A shared result (a list page): adapted and encoded once per era, only the id is new.
        let tail = encoded.get(era.era);
        if (!tail) {
          tail = successTail(era.era === 'modern' ? adaptResultForModernClient(message.method, result, this.config.serverInfo) : adaptResponseForLegacyClient(result));
          encoded.set(era.era, tail);
        }
        return { status: 200, body: [successHead(id), tail] };
      }
      const adapted =
        era.era === 'modern'
          ? adaptResultForModernClient(message.method, result, this.config.serverInfo)
          : adaptResponseForLegacyClient(result);
      const toolError = message.method === 'tools/call' && result.isError === true;
      return { status: 200, body: serializeSuccess(id, adapted), ...(toolError ? { toolError } : {}) };
    } catch (error) {
      if (error instanceof McpRejectionError) return { rejection: error.rejection };
      throw error;
    }
  }
}
