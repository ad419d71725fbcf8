import type { Response } from 'express';
import { type ContentCoding, HEADER_MCP_PROTOCOL_VERSION, type Rejection, rejectionBody } from '../protocol/index.js';
import { getHeldHeader, holdHeaders, holdsHeaders, setHeldHeader } from '../response/held-headers.js';

/**
 * Every response of the endpoint, success or error, is never stored by caches (docs/ladder.md §2).
 * Its headers are held from here for the answer's one writeHead (response/held-headers.ts).
 */
export function setCommonHeaders(res: Response, revision?: string): void {
  // Not held (a header was set before the endpoint): setHeldHeader is setHeader.
  holdHeaders(res);
  setHeldHeader(res, 'Cache-Control', 'no-store');
  if (revision) setHeldHeader(res, HEADER_MCP_PROTOCOL_VERSION, revision);
}

/**
 * `encoding`, when given, says the body's coding was chosen from the request's Accept-Encoding
 * (a shared list page): the answer then varies on it, whichever coding it is in (RFC 9110 §12.5.5).
 */
export function sendJson(
  res: Response,
  status: number,
  body: string | readonly Buffer[],
  encoding?: ContentCoding,
): void {
  if (res.headersSent) return;
  if (encoding) {
    varyOnAcceptEncoding(res);
    if (encoding === 'gzip') setHeldHeader(res, 'Content-Encoding', 'gzip');
  }
  // One writeHead with the length known: a single write on the socket, no chunked encoding. The
  // head is committed now (headersSent: sendJson never answers twice); the bytes leave with the turn.
  const parts = typeof body === 'string' ? [body] : body;
  let length = 0;
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  // Set by the entry middleware on every answer of the endpoint: only where it is missing (each
  // header set is validated and stored anew: bench/RESULTS.md, issue 32, sixth pass).
  if (getHeldHeader(res, 'Cache-Control') !== 'no-store') setHeldHeader(res, 'Cache-Control', 'no-store');
  if (holdsHeaders(res)) {
    // The head's lines given to Node as one list (response/held-headers.ts).
    setHeldHeader(res, 'Content-Type', 'application/json');
    setHeldHeader(res, 'Content-Length', String(length));
    res.writeHead(status);
  } else res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': length });
  setImmediate(writeParts, res, parts);
}

/**
 * The answer's bytes go out once the event loop has read what every ready connection sent in this
 * turn, together with the other answers of the turn, rather than one write at a time between them.
 * Each write to a peer that is idle wakes it, and on a virtual machine that wake-up is charged to the
 * writer (a VM exit): coalesced, the turn's answers find it awake after the first. Measured on the
 * bench's loopback: ~40 % less server CPU per `tools/call` (bench/RESULTS.md, issue 32, ninth pass).
 * The delay is at most one turn of the loop.
 */
function writeParts(res: Response, parts: readonly (string | Buffer)[]): void {
  // Ended by other code meanwhile (a second end is a write after end), or its connection gone. A
  // response queued behind another on a pipelined connection has no socket yet: it is ended, and
  // Node sends it once the one before has left.
  if (res.writableEnded || res.destroyed || res.socket?.destroyed === true) return;
  // Pre-encoded parts go out as they are (corked: one writev with the headers), never re-encoded.
  if (parts.length > 1) res.cork();
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts[parts.length - 1]);
}

/** Adds Accept-Encoding to a Vary an app's middleware may have set already (e.g. `Vary: Origin`). */
function varyOnAcceptEncoding(res: Response): void {
  const current = getHeldHeader(res, 'Vary');
  const values: readonly string[] =
    current === undefined ? [] : Array.isArray(current) ? (current as readonly string[]) : [String(current)];
  const names = values.flatMap((value) => value.split(',').map((name) => name.trim().toLowerCase()));
  if (names.includes('*') || names.includes('accept-encoding')) return;
  setHeldHeader(res, 'Vary', [...values, 'Accept-Encoding'].join(', '));
}

export function sendRejection(res: Response, rejection: Rejection): void {
  if (rejection.headers) for (const [name, value] of Object.entries(rejection.headers)) setHeldHeader(res, name, value);
  if (rejection.rung === 'body_too_large' && !res.headersSent) {
    // Answer and close rather than drain an upload nobody will read (rungs 2 and 6).
    res.setHeader('Connection', 'close');
    closeLingering(res);
  }
  sendJson(res, rejection.status, rejectionBody(rejection));
}

/** How long the rest of a refused upload is still read, and discarded, once the 413 is sent. */
const LINGER_MS = 2000;

/**
 * Closing a socket with unread bytes in its receive buffer makes TCP send a reset, and a client
 * still uploading may then lose the 413 before reading it (seen on Express 4 most of the time). So
 * after the answer the socket is half-closed and what still arrives is discarded for LINGER_MS at
 * most, as HTTP servers' "lingering close" does, before it is destroyed.
 */
function closeLingering(res: Response): void {
  const { socket } = res.req;
  // Node's server calls destroySoon() itself once a `Connection: close` answer is finished.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
  res.once('finish', () => {
    res.req.resume();
    socket.destroySoon();
  });
}
