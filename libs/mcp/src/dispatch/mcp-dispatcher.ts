import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DispatchedCall } from '../call/dispatched-call.js';
import { answerOf, type InputRequiredSignal, type InputRoundOrigin } from '../errors.js';
import { MrtrService } from '../confirmation/mrtr.service.js';
import { McpConfig } from '../mcp-config.js';
import {
  acceptsGzip,
  adaptResponseForLegacyClient,
  adaptResultForModernClient,
  type ContentCoding,
  EncodedAnswer,
  encodedOf,
  type EraDecision,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  methodNotFound,
  type Rejection,
  serializeSuccess,
} from '../protocol/index.js';
import { CompletionHandler } from './completion.handler.js';
import { LifecycleHandler } from './lifecycle.handler.js';
import { answerSiteOf, type McpMethodHandler, STREAM_OPENED } from '../call/mcp-call.js';
import { isThenable } from './thenable.js';
import { LISTEN_METHODS, type McpMethodGroup } from '../call/method-group.js';
import { PromptHandler } from './prompt.handler.js';
import { ResourceHandler } from './resource.handler.js';
import { TaskHandler } from './task.handler.js';
import { ToolHandler } from './tool.handler.js';

/**
 * `body`: the JSON text, or its bytes in parts (a shared result's pre-encoded tail after the id).
 * `toolError`: a `tools/call` whose result says `isError` (the telemetry's `tool_error`).
 * `encoding`: set on a shared result's answer, whose coding follows the request's Accept-Encoding
 * (so it varies on it); `gzip` when the body parts are a gzip member.
 * `streamed`: the handler answered with an SSE stream it keeps writing (subscriptions/listen).
 */
export type DispatchOutcome =
  | { status: 200; body: string | readonly Buffer[]; toolError?: boolean; encoding?: ContentCoding }
  | { rejection: Rejection }
  | { streamed: true };

/** Routes one request that passed the ladder to its method handler and adapts the result to the era. */
@Injectable()
export class McpDispatcher {
  private readonly handlers = new Map<string, McpMethodHandler>();

  constructor(
    private readonly config: McpConfig,
    private readonly mrtr: MrtrService,
    lifecycle: LifecycleHandler,
    tools: ToolHandler,
    resources: ResourceHandler,
    prompts: PromptHandler,
    completions: CompletionHandler,
    @Inject(LISTEN_METHODS) listen: McpMethodGroup,
    tasks: TaskHandler,
  ) {
    const groups = [lifecycle, tools, resources, prompts, completions, listen, tasks];
    for (const handler of groups.flatMap((group) => group.handlers())) {
      this.handlers.set(handler.method, handler);
    }
  }

  /**
   * The outcome, or a promise of it only when the method's handler answered with one (a synchronous
   * tools/call is answered in the same tick: bench/RESULTS.md, issue 32, sixth pass). What the
   * handler throws or rejects with is answered the same way in both cases.
   */
  dispatch(
    exchange: { message: JsonRpcMessage; era: EraDecision },
    req: Request,
    res: Response,
  ): DispatchOutcome | Promise<DispatchOutcome> {
    const { message, era } = exchange;
    const id = message.id!;
    const handler = this.handlers.get(message.method);
    if (!handler || !handler.eras.includes(era.era)) {
      return { rejection: methodNotFound(id, message.method, era.era === 'modern') };
    }
    const call = new DispatchedCall(
      id,
      message.method,
      message.params ?? {},
      era,
      this.config.principalOf(req),
      req,
      res,
      this.config.requestId,
    );
    try {
      const result = handler.handle(call);
      if (isThenable(result)) return this.settled(call, result);
      return this.answered(call, result);
    } catch (error) {
      return this.failed(call, error);
    }
  }

  private async settled(call: DispatchedCall, pending: PromiseLike<HandlerResult>): Promise<DispatchOutcome> {
    try {
      return this.answered(call, await pending);
    } catch (error) {
      return this.failed(call, error);
    }
  }

  private answered(call: DispatchedCall, result: HandlerResult): DispatchOutcome {
    return result === STREAM_OPENED
      ? { streamed: true }
      : this.success(call.method, call.era, call.id, call.req, result);
  }

  /**
   * The method site's one answer to what a handler throws (errors.ts); what it does not answer
   * here (an app's HttpException of 5xx, an unexpected error) goes on to the endpoint's exception filter.
   */
  private failed(call: DispatchedCall, error: unknown): DispatchOutcome {
    const answer = answerOf(error, answerSiteOf(call, 'method', this.config));
    if (answer.kind === 'rejection' && answer.cause === undefined) return { rejection: answer.rejection };
    if (answer.kind === 'input_required' && hasOrigin(answer.signal))
      return this.success(call.method, call.era, call.id, call.req, this.mrtr.sealed(call, answer.signal));
    throw error;
  }

  /** A handler's result, adapted to the era and serialized. */
  private success(method: string, era: EraDecision, id: JsonRpcId, req: Request, result: JsonObject): DispatchOutcome {
    const encoded = encodedOf(result);
    if (encoded) {
      // A shared result (a list page): adapted and encoded once per era, only the id is new.
      let answer = encoded.get(era.era);
      if (!answer) {
        answer = EncodedAnswer.of(
          era.era === 'modern'
            ? adaptResultForModernClient(method, result, this.config.serverInfo)
            : adaptResponseForLegacyClient(result),
        );
        encoded.set(era.era, answer);
      }
      // Compressed once too (serialize.ts): gzip costs a request nothing but its id's CRC.
      return answer.compressible && acceptsGzip(req.headers['accept-encoding'])
        ? { status: 200, body: answer.gzip(id), encoding: 'gzip' }
        : { status: 200, body: answer.identity(id), encoding: 'identity' };
    }
    const adapted =
      era.era === 'modern'
        ? adaptResultForModernClient(method, result, this.config.serverInfo)
        : adaptResponseForLegacyClient(result, era.revision);
    const toolError = method === 'tools/call' && result.isError === true;
    const body = serializeSuccess(id, adapted);
    return toolError ? { status: 200, body, toolError } : { status: 200, body };
  }
}

/** What a method's handler answers with. */
type HandlerResult = JsonObject | typeof STREAM_OPENED;

/** A request for input from a round MrtrService opened for this request: its answer's state can be sealed. */
function hasOrigin(signal: InputRequiredSignal): signal is InputRequiredSignal & { origin: InputRoundOrigin } {
  return signal.origin !== undefined;
}
