import { Logger, type NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import type { Express, Response } from 'express';

/** Node's `end` as it is called here: `(chunk, encoding, callback)`, any of them undefined. */
type End = (this: Response, chunk?: unknown, encoding?: unknown, callback?: unknown) => Response;

/** The response whose `end` is being called by `reply`'s `res.send` (synchronous: one at a time). */
let deferring: Response | undefined;

/**
 * The module's Express adapter, with the JSON answers of the app's own routes (Nest's `reply`: what
 * a REST handler returns) written at the end of the event loop's turn, as the MCP endpoint writes
 * its answers (libs/mcp/src/http/send.ts, writeParts): written one at a time between reads, each
 * answer found the idle load generator asleep and paid for waking it inside `writev` — 30 µs of
 * system time per REST call against 10 at the MCP door (bench/RESULTS.md, issue 32, twenty-eighth
 * pass).
 *
 * Express's `res.send` runs at once with the serialised body, and does what it always does
 * (charset, Content-Length, ETag and 304, HEAD); only its closing `end` waits. The head is
 * committed then (`headersSent`: nothing can answer twice), and a value JSON cannot hold (a cycle,
 * a BigInt) still throws inside Nest's handling, to the exception filters. Anything else — no body,
 * a stream, an Error, bytes, a Content-Type already set, the app's JSON settings (`json replacer`,
 * `json spaces`, `json escape`) — takes Nest's reply as before.
 */
export class EndOfTurnJsonAdapter extends StableExpressAdapter {
  private readonly endLogger = new Logger(EndOfTurnJsonAdapter.name);

  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    // On the prototype of the app's responses (Express's `app.response`, which the module's adapter
    // builds them on): one shape for every response, and one comparison for those not deferred.
    const prototype = this.getInstance<Express>().response as Response;
    const end = prototype.end as unknown as End;
    const logger = this.endLogger;
    // Node's three parameters, not a rest array: every response of the app, both doors, comes here.
    // Without a body (HEAD, 204, 304, a toJSON giving undefined) Node's end itself sets the length
    // (0) a head committed before it would lack: such answers end at once, as before.
    const endOrDefer: End = function (chunk, encoding, callback) {
      if (this !== deferring || !chunk) return end.call(this, chunk, encoding, callback);
      deferring = undefined;
      this.writeHead(this.statusCode);
      setImmediate(endAtTurnEnd, this, end, chunk, encoding, callback, logger);
      return this;
    };
    prototype.end = endOrDefer as unknown as Response['end'];
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!sentAsPlainJson(response, body)) return super.reply(response, body, statusCode);
    // In the order of Nest's reply and Express's res.json.
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    const text = JSON.stringify(body);
    response.set('Content-Type', 'application/json');
    deferring = response;
    try {
      response.send(text);
    } finally {
      deferring = undefined;
    }
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

function endAtTurnEnd(
  response: Response,
  end: End,
  chunk: unknown,
  encoding: unknown,
  callback: unknown,
  logger: Logger,
): void {
  // Ended by other code meanwhile, or its connection gone (send.ts writeParts checks the same). A
  // response queued behind another on a pipelined connection has no socket yet: ended, Node sends
  // it once the one before has left.
  if (response.writableEnded || response.destroyed || response.socket?.destroyed === true) return;
  try {
    end.call(response, chunk, encoding, callback);
  } catch (error) {
    // Outside Nest's handling now: a throwing 'prefinish' listener must not stop the process.
    logger.error(`a REST answer could not be ended: ${(error as Error).message}`);
    response.destroy();
  }
}
