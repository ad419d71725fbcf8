import { Logger, StreamableFile } from '@nestjs/common';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import type { Response } from 'express';
import { internalErrorBody } from './api-error.js';

/**
 * The module's Express adapter, with the JSON answers of the app's own routes (Nest's `reply`: what
 * a REST handler returns) sent at the end of the event loop's turn, as the MCP endpoint writes its
 * answers (libs/mcp/src/http/send.ts, writeParts): written one at a time between reads, each answer
 * found the idle load generator asleep and paid for waking it inside `writev` — 30 µs of system
 * time per REST call against 10 at the MCP door (bench/RESULTS.md, issue 32, twenty-eighth pass).
 *
 * The status is set and the body serialised here, so a value JSON cannot hold (a cycle, a BigInt)
 * still throws inside Nest's handling, to the exception filters; Express's `res.send` then does
 * what it always does (charset, Content-Length, ETag and 304, HEAD) with that text, once the turn
 * ends. Until then the head is not committed (`headersSent` is false): an answer another part of
 * the app sends meanwhile wins, and this one is dropped. Committing the head at once, as sendJson
 * does, cost a REST call 1.22 times the CPU of sending it whole at the end of the turn (the same
 * pass). Should Express's send fail then, the API's 500 is written by Node alone. Anything else —
 * no body, a stream, an Error, bytes, a Content-Type already set, the app's JSON settings (`json
 * replacer`, `json spaces`, `json escape`) — takes Nest's reply as before.
 */
export class EndOfTurnJsonAdapter extends StableExpressAdapter {
  private readonly sendLogger = new Logger(EndOfTurnJsonAdapter.name);

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!sentAsPlainJson(response, body)) return super.reply(response, body, statusCode);
    // In the order of Nest's reply and Express's res.json.
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    const text = JSON.stringify(body);
    response.set('Content-Type', 'application/json');
    setImmediate(sendAtTurnEnd, response, text, this.sendLogger);
    return response;
  }
}

/** The answers this adapter defers: a JSON object or array, with nothing about the reply already decided. */
function sentAsPlainJson(response: Response, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  if (body instanceof StreamableFile || body instanceof Error || ArrayBuffer.isView(body)) return false;
  if (body instanceof ArrayBuffer || response.get('Content-Type') !== undefined) return false;
  const app = response.app;
  return !app.get('json replacer') && !app.get('json spaces') && !app.get('json escape');
}

function sendAtTurnEnd(response: Response, text: string | undefined, logger: Logger): void {
  // Answered by other code meanwhile, or its connection gone, also in this very turn (send.ts
  // writeParts checks the same). A response queued behind another on a pipelined connection has
  // no socket yet: sent, Node writes it once the one before has left.
  if (response.headersSent || response.writableEnded || response.destroyed) return;
  if (response.socket?.destroyed === true) return;
  try {
    response.send(text);
  } catch (error) {
    // Outside Nest's handling now (an app's etag function, a 'prefinish' listener): answered as the
    // API's exception filter answers a failure, never by stopping the process.
    logger.error(`a REST answer could not be sent: ${(error as Error).message}`);
    answerFailure(response);
  }
}

/** The API's 500, as its exception filter answers it, written by Node alone (Express's send failed). */
function answerFailure(response: Response): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const requestId = String(response.getHeader('Request-Id') ?? '');
  const body = JSON.stringify(internalErrorBody(requestId));
  for (const name of ['Content-Length', 'ETag', 'Content-Type']) response.removeHeader(name);
  response
    .writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
    .end(body);
}
