import type { Socket } from 'node:net';
import type { Response } from 'express';

const CRLF = Buffer.from('\r\n');

/**
 * The bytes of one SSE message, and the same bytes framed as one HTTP/1.1 chunk
 * (`<hex length>\r\n<bytes>\r\n`) — computed once, shared by every stream that writes them.
 */
export class SseChunk {
  private chunk?: Buffer;

  constructor(readonly payload: Buffer) {}

  get framed(): Buffer {
    return (this.chunk ??= Buffer.concat([Buffer.from(`${this.payload.length.toString(16)}\r\n`), this.payload, CRLF]));
  }
}

/**
 * Where a listen stream's messages can be written as pre-framed chunks: the response's socket,
 * once the response has sent its headers and chose chunked framing, and holds the connection.
 *
 * Why not `res.write()`: measured on `npm run bench:listen` (bench/RESULTS.md), `res.write` of a
 * chunked response costs more CPU than the rest of a delivery — it corks the socket, queues the
 * length, the bytes and the CRLF as three writes, uncorks on the next tick and gathers them into
 * one writev — and a delivery to 1 000 streams pays it 1 000 times. One `socket.write()` of the
 * same bytes is the same wire. It is safe because a listen response never writes its body
 * through `res` again before `res.end()` (which adds the last chunk and the terminator), and is
 * used only when Node framed the response as chunked (HTTP/1.1; an HTTP/1.0 client gets
 * `res.write`, unframed), and the socket is this response's own (not a pipelined response still
 * waiting for an earlier one).
 */
export function chunkSocket(res: Response): Socket | undefined {
  const socket = res.socket;
  const chunked = (res as unknown as { chunkedEncoding?: unknown }).chunkedEncoding === true;
  const own = (socket as unknown as { _httpMessage?: unknown } | null)?._httpMessage === res;
  return chunked && own && res.headersSent && socket?.writable ? socket : undefined;
}
