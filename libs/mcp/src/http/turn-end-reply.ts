import { Logger, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { describeError } from '../protocol/index.js';

/** The body of the 500 answered when Express's send fails at the end of the turn (turn-end-reply.ts). */
export type FailedReplyBody = (response: Response) => object;

/** Nest's own body for a failure no exception filter knows (BaseExceptionFilter). */
const NEST_FAILURE_BODY: FailedReplyBody = () => ({ statusCode: 500, message: 'Internal server error' });

const logger = new Logger('StableExpressAdapter');

/**
 * Nest's `reply` for a JSON object or array — what a route handler returns, and the bodies of Nest's
 * own exception filter (a 404, a validation 400) — sent at the end of the event loop's turn, as
 * the MCP endpoint sends its answers (send.ts, writeParts): written one at a time between reads,
 * each answer found an idle client asleep and paid for waking it inside `writev` — Kadu's REST door
 * took 1.9 times the CPU per call it takes sent this way (bench/RESULTS.md, issue 32, twenty-eighth
 * pass).
 *
 * The status is set and the body serialised at once, so a value JSON cannot hold (a cycle, a
 * BigInt) still throws inside Nest's handling, to the exception filters; Express's `res.send` then
 * does what it always does (charset, Content-Length, ETag and 304, HEAD) with that text, once the
 * turn ends. Until then the head is not committed (`headersSent` is false): an answer other code
 * sends meanwhile wins, and this one is dropped. Committing the head at once, as sendJson does,
 * cost a REST call 1.22 times the CPU (the same pass). Should Express's send fail before the head
 * is written (an app's `etag` function), a 500 with `failedBody` is written by Node alone
 * (answerFailure).
 *
 * Returns false, having done nothing, for anything else — no body, a stream, an Error, bytes, a
 * Content-Type already set, the app's JSON settings (`json replacer`, `json spaces`, `json
 * escape`): those take Nest's own `reply`, as each Nest version writes them.
 */
export function replyAtTurnEnd(
  response: Response,
  body: unknown,
  statusCode: number | undefined,
  failedBody: FailedReplyBody = NEST_FAILURE_BODY,
): boolean {
  if (!sentAsPlainJson(response, body)) return false;
  // In the order of Nest's reply and Express's res.json.
  if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
  const text = JSON.stringify(body);
  response.set('Content-Type', 'application/json');
  setImmediate(sendAtTurnEnd, response, text, failedBody);
  return true;
}

/** The answers sent at the end of the turn: a JSON object or array, with nothing about the reply already decided. */
function sentAsPlainJson(response: Response, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  if (body instanceof StreamableFile || body instanceof Error || ArrayBuffer.isView(body)) return false;
  if (body instanceof ArrayBuffer || response.get('Content-Type') !== undefined) return false;
  const app = response.app;
  return !app.get('json replacer') && !app.get('json spaces') && !app.get('json escape');
}

function sendAtTurnEnd(response: Response, text: string | undefined, failedBody: FailedReplyBody): void {
  // Answered by other code meanwhile, or its connection gone, also in this very turn (send.ts
  // writeParts checks the same). A response queued behind another on a pipelined connection has
  // no socket yet: sent, Node writes it once the one before has left.
  if (response.headersSent || response.writableEnded || response.destroyed) {
    if (response.headersSent && !response.writableEnded && !response.destroyed)
      logger.warn('a JSON reply was dropped: other code had begun an answer (its head is written, its end is not)');
    return;
  }
  if (response.socket?.destroyed === true) return;
  try {
    response.send(text);
  } catch (error) {
    // Outside Nest's handling now: answered as an exception filter answers a failure, never by
    // stopping the process.
    logger.error(`a JSON reply could not be sent: ${describeError(error)}`);
    answerFailure(response, failedBody);
  }
}

/**
 * After a failed send: a 500 written by Node alone when nothing of the answer is out; nothing more
 * when all of it is (a `'prefinish'` listener throws once the bytes are written, as under Nest's own
 * reply); the connection closed when only its head is, or when the 500 cannot be written.
 */
function answerFailure(response: Response, failedBody: FailedReplyBody): void {
  if (response.writableEnded) return;
  try {
    if (response.headersSent) throw new Error('its head is written, its end is not');
    const body = failureText(response, failedBody);
    for (const name of ['Content-Length', 'ETag', 'Content-Type']) response.removeHeader(name);
    response
      .writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
      .end(body);
  } catch (error) {
    logger.error(`the failed JSON reply's 500 could not be sent, the connection is closed: ${describeError(error)}`);
    response.destroy();
  }
}

/** `failedBody`'s answer as JSON text, or Nest's own when it throws or gives nothing JSON can hold. */
function failureText(response: Response, failedBody: FailedReplyBody): string {
  try {
    const text: unknown = JSON.stringify(failedBody(response));
    if (typeof text === 'string') return text;
  } catch (error) {
    logger.error(`the failed JSON reply's body could not be made: ${describeError(error)}`);
  }
  return JSON.stringify(NEST_FAILURE_BODY(response));
}
