import type { Response } from 'express';
import { type Rejection, rejectionBody } from '../protocol/index.js';

export const HEADER_MCP_PROTOCOL_VERSION = 'MCP-Protocol-Version';

/** Every response of the endpoint, success or error, is never stored by caches (docs/ladder.md §2). */
export function setCommonHeaders(res: Response, revision?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  if (revision) res.setHeader(HEADER_MCP_PROTOCOL_VERSION, revision);
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function sendJson(res: Response, status: number, body: string): void {
  if (res.headersSent) return;
  // One writeHead with the length known: a single write on the socket, no chunked encoding.
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
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
