import type { Response } from 'express';
import { type Rejection, rejectionBody } from '../protocol/index.js';

export const HEADER_MCP_PROTOCOL_VERSION = 'MCP-Protocol-Version';

/** Every response of the endpoint, success or error, is never stored by caches (wire.md §2). */
export function setCommonHeaders(res: Response, revision?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  if (revision) res.setHeader(HEADER_MCP_PROTOCOL_VERSION, revision);
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function sendJson(res: Response, status: number, body: string | readonly Buffer[]): void {
  if (res.headersSent) return;
  // One writeHead with the length known: a single write on the socket, no chunked encoding.
  if (typeof body === 'string') {
    res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  // Pre-encoded parts go out as they are (corked: one writev with the headers), never re-encoded.
  let length = 0;
  for (const part of body) length += part.length;
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': length });
  res.cork();
  for (let i = 0; i < body.length - 1; i++) res.write(body[i]);
  res.end(body[body.length - 1]);
}

export function sendRejection(res: Response, rejection: Rejection): void {
  if (rejection.headers) for (const [name, value] of Object.entries(rejection.headers)) res.setHeader(name, value);
  if (rejection.rung === 'body_too_large' && !res.headersSent) {
    // Answer and close rather than drain an upload nobody will read (rungs 2 and 6).
    res.setHeader('Connection', 'close');
    res.once('finish', () => res.req.socket.destroySoon());
  }
  sendJson(res, rejection.status, rejectionBody(rejection));
}

/** A rejection thrown from a guard or handler; the endpoint's exception filter writes it. */
export class McpRejectionError extends Error {
  constructor(readonly rejection: Rejection) {
    super(rejection.message);
    this.name = 'McpRejectionError';
  }
}
