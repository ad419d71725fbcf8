import { StreamableFile } from '@nestjs/common';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import type { Response } from 'express';

/**
 * The module's Express adapter, with the JSON answers of the app's own routes (Nest's `reply`: what
 * a REST handler returns) sent at the end of the event loop's turn, as the MCP endpoint sends its
 * answers (libs/mcp/src/http/send.ts, writeParts): written one at a time between reads, each answer
 * found the idle load generator asleep and paid for waking it inside `writev` — 30 µs of system
 * time per REST call against 10 at the MCP door (bench/RESULTS.md, issue 32, twenty-eighth pass).
 *
 * Only the send waits: the body is serialised here, so a value JSON cannot hold (a cycle, a BigInt)
 * still throws inside Nest's handling, to the exception filters, and Express's `res.send` then does
 * what it always does (charset, Content-Length, ETag and freshness, HEAD) with the same text.
 * Anything else — no body, a stream, an Error, bytes, a Content-Type already set, the app's JSON
 * settings (`json replacer`, `json spaces`, `json escape`) — goes through Nest's reply as before.
 */
export class EndOfTurnJsonAdapter extends StableExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!sentAsPlainJson(response, body)) return super.reply(response, body, statusCode);
    // What res.json does before res.send (Express 5's stringify without the app's settings).
    const text = JSON.stringify(body);
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    response.set('Content-Type', 'application/json');
    setImmediate(sendAtTurnEnd, response, text);
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

function sendAtTurnEnd(response: Response, text: string | undefined): void {
  // Answered by other code meanwhile, or its connection gone (send.ts writeParts does the same). A
  // response queued behind another on a pipelined connection has no socket yet: sent, Node
  // writes it once the one before has left.
  if (response.headersSent || response.writableEnded || response.destroyed) return;
  response.send(text);
}
