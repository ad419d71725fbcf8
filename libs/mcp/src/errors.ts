/**
 * Everything the module throws, and the one map from any thrown value to what the client sees.
 * Both eras answer alike, except where a cell says "2026:" or "2025:".
 *
 * thrown                  | inside tools/call         | other methods               | before dispatch (app guards)
 * ----------------------- | ------------------------- | --------------------------- | ----------------------------
 * McpRejectionError       | its rejection             | its rejection               | its rejection
 * StoreUnavailable        | 503 -32603 + Retry-After  | 503 -32603 + Retry-After    | 503 -32603 + Retry-After
 * HttpException 503       | 503 -32603 + Retry-After  | 503 -32603 + Retry-After    | the exception, as is
 * HttpException 4xx       | isError result + its body | 200 -32602 + its body (1)   | the exception, as is
 * HttpException other 5xx | isError result, masked    | the exception, as is        | the exception, as is
 * UnidentifiedCaller      | 500 -32603, masked (2)    | 500 -32603, masked (2)      | 500 -32603, masked (2)
 * MissingCapabilitySignal | 400 -32021                | 400 -32021                  | 500 -32603, masked
 * InputRequiredSignal     | 2026: input_required;     | 2026: input_required;       | 500 -32603, masked
 *                         | 2025: 200 -32602          | 2025: 200 -32602            |
 * anything else           | isError result, masked    | 500 -32603, masked          | 500 -32603, masked
 *
 * Each column is answered in one place: inside tools/call by ToolInvoker.failure (the steps of
 * TOOL_CALL from `bind` on, dispatch/tool-call.pipeline.ts), which hands what is not a tool error
 * on to the next column; other methods (and tools/call's own refusals) by McpDispatcher; before
 * dispatch by McpExceptionFilter. `input_required` is sealed by MrtrService for the dispatcher.
 *
 * (1) resources/read: a 404 is "Resource not found" with `data.uri`.
 * (2) logged once per process with what to set, not per request (auth/caller-identity.ts).
 * "Masked": the client gets the request id only; the error goes to the log (docs/security.md §Errors).
 * Pinned by libs/mcp/test/module/ (tools-call, catalog, mrtr) and libs/mcp/test/wire/ (budgets, headers).
 */
import { HttpException } from '@nestjs/common';
import { UnidentifiedCaller } from './auth/caller-identity.js';
import {
  ErrorCode,
  type InputRequest,
  internalError,
  invalidParams,
  type JsonObject,
  type JsonRpcId,
  McpRejectionError,
  type Rejection,
  reject,
  describeValue,
  serviceUnavailable,
} from './protocol/index.js';

/**
 * A refusal thrown from a guard or handler; the endpoint answers it as its rung says. Defined in the
 * pure core (protocol/client-values.ts) so that `stringParam` can throw it there.
 */
export { McpRejectionError };

/**
 * The state store (or the rate limits kept in it) could not be reached: whatever needed it is
 * refused with 503 and Retry-After, never let through unchecked (docs/security.md §Failure).
 */
export class StoreUnavailable extends Error {
  constructor(
    cause: unknown,
    /** What could not be reached, as the 503 message names it. */
    readonly store: 'the state store' | 'the rate-limit store' = 'the state store',
  ) {
    super(`${store} is unavailable: ${describeValue(cause)}`);
    this.name = 'StoreUnavailable';
  }
}

/** What an input round was opened for (MrtrService.open): the retry's requestState is sealed to it. */
export interface InputRoundOrigin {
  /** The tool, prompt or URI. */
  readonly target: string;
  readonly args: unknown;
}

/**
 * Thrown by `McpInputRound.require`: the module answers `input_required` (or refuses, in the 2025
 * era). `origin` is the round's: without one (a round the module did not open for this request)
 * there is no state to seal, and the endpoint answers as for any unexpected value.
 */
export class InputRequiredSignal {
  constructor(
    readonly requests: Readonly<Record<string, InputRequest>>,
    readonly state: unknown,
    readonly origin?: InputRoundOrigin,
  ) {}
}

/** Asked for a kind of input the client did not declare in this request's envelope. */
export class MissingCapabilitySignal {
  constructor(readonly required: JsonObject) {}
}

/** Where the thrown value was caught, and what the answer may quote. */
export interface AnswerSite {
  /** `tool`: inside a tools/call tool run; `method`: any other JSON-RPC method; `endpoint`: before dispatch. */
  readonly where: 'tool' | 'method' | 'endpoint';
  readonly id: JsonRpcId | null;
  readonly era?: 'modern' | 'legacy';
  /** resources/read: the URI asked for, so that a 404 reads "resource not found". */
  readonly uri?: string;
  /** The body of an app HttpException as the REST API sends it. */
  readonly errorBody: (exception: HttpException) => unknown;
  /** The request id quoted by masked answers (computed only when one is needed). */
  readonly requestId: () => string;
}

/** What the client sees. */
export type McpAnswer =
  /** A JSON-RPC error with the rung's HTTP status; `cause` is set when it must be logged (masked 500). */
  | { readonly kind: 'rejection'; readonly rejection: Rejection; readonly cause?: unknown }
  /** A tools/call result with `isError: true` and this body as its text; `cause` is set when masked. */
  | { readonly kind: 'tool_error'; readonly body: unknown; readonly cause?: unknown }
  /** 2026 era: the MRTR service seals a state and answers `input_required`. */
  | { readonly kind: 'input_required'; readonly signal: InputRequiredSignal }
  /** The app's own HttpException, sent with its status and body. */
  | { readonly kind: 'http'; readonly exception: HttpException };

/** The one map from a thrown value to the client's answer (see the table above). */
export function answerOf(thrown: unknown, site: AnswerSite): McpAnswer {
  if (thrown instanceof McpRejectionError) return { kind: 'rejection', rejection: thrown.rejection };
  if (thrown instanceof StoreUnavailable) {
    return { kind: 'rejection', rejection: serviceUnavailable(site.id, 5, thrown.store) };
  }
  if (thrown instanceof HttpException) return answerOfHttp(thrown, site);
  // Said to the operator once already (auth/caller-identity.ts): no stack per request.
  if (thrown instanceof UnidentifiedCaller)
    return { kind: 'rejection', rejection: internalError(site.id, site.requestId()) };
  if (site.where !== 'endpoint' && thrown instanceof MissingCapabilitySignal) {
    const names = Object.keys(thrown.required).join(', ');
    const rejection = reject(
      'missing_client_capability',
      400,
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${names}`,
      site.id,
      { data: { requiredCapabilities: thrown.required } },
    );
    return { kind: 'rejection', rejection };
  }
  if (site.where !== 'endpoint' && thrown instanceof InputRequiredSignal) {
    // Never input_required in the 2025 era: there is no way to carry the request.
    if (site.era === 'modern') return { kind: 'input_required', signal: thrown };
    const message = 'This request needs input from the client, which the 2025-era protocol cannot carry';
    return { kind: 'rejection', rejection: invalidParams(site.id, message) };
  }
  return unexpected(thrown, site);
}

function answerOfHttp(exception: HttpException, site: AnswerSite): McpAnswer {
  const status = exception.getStatus();
  if (site.where === 'endpoint') return { kind: 'http', exception };
  if (status === 503) {
    // The app's database or queue cannot take the request: the whole request answers 503, so that
    // clients and load balancers back off (docs/ladder.md, rung 15).
    const carrier = exception as HttpException & { headers?: Record<string, string>; retryAfter?: number };
    const retryAfter = Number(carrier.headers?.['Retry-After'] ?? carrier.retryAfter ?? 5) || 5;
    return { kind: 'rejection', rejection: serviceUnavailable(site.id, retryAfter, 'a dependency') };
  }
  if (status >= 500) return site.where === 'tool' ? unexpected(exception, site) : { kind: 'http', exception };
  // Rung 15: an error the caller can act on carries the REST API's own error body.
  if (site.where === 'tool') return { kind: 'tool_error', body: site.errorBody(exception) };
  if (status === 404 && site.uri !== undefined) {
    return {
      kind: 'rejection',
      rejection: invalidParams(site.id, `Resource not found: ${site.uri}`, { uri: site.uri }),
    };
  }
  const rejection = invalidParams(site.id, `Invalid params: ${exception.message}`, site.errorBody(exception));
  return { kind: 'rejection', rejection };
}

function unexpected(thrown: unknown, site: AnswerSite): McpAnswer {
  const requestId = site.requestId();
  if (site.where === 'tool') {
    const message = `The tool failed unexpectedly. Quote request id ${requestId} to the operator.`;
    return {
      kind: 'tool_error',
      body: { error: { code: 'internal_error', message, request_id: requestId } },
      cause: thrown,
    };
  }
  return { kind: 'rejection', rejection: internalError(site.id, requestId), cause: thrown };
}

/** What a caller that cannot answer itself rethrows: the rejection as an error, else the value as thrown. */
export function rethrowable(answer: McpAnswer, thrown: unknown): unknown {
  return answer.kind === 'rejection' && !answer.cause && !(thrown instanceof McpRejectionError)
    ? new McpRejectionError(answer.rejection)
    : thrown;
}

/**
 * The `error.code` of the `isError` results a destructive tool answers with instead of running
 * (confirmation/, docs/security.md §Confirmation), and when each is sent. Nothing has run in any of them.
 */
export const CONFIRMATION_REFUSALS = {
  /** `destructiveTools: 'refuse'`: this server never runs destructive tools over MCP. */
  refused: 'confirmation_required',
  /** The request has no authenticated caller to bind a confirmation to. */
  unavailable: 'confirmation_unavailable',
  /** Form elicitation: the person declined or cancelled. */
  declined: 'confirmation_declined',
  /** URL elicitation or approval link: the person chose Cancel on the approval page. */
  rejected: 'approval_rejected',
  /** Approval link: the same link again, the person has not decided yet. */
  pending: 'approval_pending',
  /** Approval link: a new approval, its link for the person. */
  required: 'approval_required',
  /** The caller's pending approvals are at the limit: no new one was made. */
  tooManyPending: 'too_many_pending_approvals',
} as const;

export type ConfirmationRefusal = keyof typeof CONFIRMATION_REFUSALS;

/** The `isError` result of a confirmation refusal: `{"error":{"code",…}}` as text, like a tool's own error. */
export function confirmationRefusal(
  refusal: ConfirmationRefusal,
  message: string,
  extra: Record<string, unknown> = {},
): JsonObject {
  const error = { code: CONFIRMATION_REFUSALS[refusal], message, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}
