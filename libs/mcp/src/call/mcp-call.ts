import type { Request, Response } from 'express';
import type { McpPrincipal } from '../auth/principal.js';
import type { AnswerSite } from '../errors.js';
import type { ClientInfo, EraDecision, JsonObject, JsonRpcId } from '../protocol/index.js';

/** One JSON-RPC request that passed the ladder, as handlers see it. */
export interface McpCall {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: JsonObject;
  readonly era: EraDecision;
  readonly principal?: McpPrincipal;
  readonly requestId: string;
  readonly req: Request;
  readonly res: Response;
}

/** What `@McpContext()` gives a tool method. */
export interface McpCallContext {
  readonly requestId: string;
  readonly era: 'modern' | 'legacy';
  readonly protocolVersion: string;
  readonly clientInfo?: ClientInfo;
  readonly clientCapabilities?: JsonObject;
  /** The tool, prompt or resource template being served. */
  readonly toolName: string;
  /** resources/read: the URI asked for. */
  readonly uri?: string;
  /**
   * tools/call of a `@McpTool({ task })` tool: true when the call will be answered with a task, made
   * by the app's task source from what the method returns (start the work and return its handle).
   */
  readonly task?: boolean;
  /** completion/complete: the other arguments already filled in. */
  readonly arguments?: Record<string, string>;
}

/** What a handler returns when it answered with a stream itself (`subscriptions/listen`). */
export const STREAM_OPENED = Symbol('STREAM_OPENED');

export interface McpMethodHandler {
  readonly method: string;
  readonly eras: readonly ('modern' | 'legacy')[];
  handle(call: McpCall): Promise<JsonObject | typeof STREAM_OPENED> | JsonObject;
}

/** Where an error thrown while serving `call` is answered (see errors.ts). */
export function answerSiteOf(
  call: McpCall,
  where: 'tool' | 'method',
  config: Pick<AnswerSite, 'errorBody'>,
): AnswerSite {
  const uri = call.method === 'resources/read' && typeof call.params.uri === 'string' ? call.params.uri : undefined;
  return {
    where,
    id: call.id,
    era: call.era.era,
    ...(uri === undefined ? {} : { uri }),
    errorBody: config.errorBody,
    requestId: () => call.requestId,
  };
}
