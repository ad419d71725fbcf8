import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { type BodyRead, readBody, readCompleteBody } from './read-body.js';

// readCompleteBody must give what readBody gives whenever it answers (the transport guard takes
// either), and leave the request ending as a body read by readBody does.
let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

interface Seen {
  now?: BodyRead;
  read: BodyRead;
  ended: boolean;
}

/** Sends `parts` on one connection (written `gapMs` apart) and reports what the handler saw, a tick after the request. */
async function post(parts: string[], limit: number, gapMs = 0): Promise<Seen> {
  const seen = new Promise<Seen>((resolve) => {
    server = createServer((incoming: IncomingMessage, res) => {
      const req = incoming as Request;
      void Promise.resolve().then(async () => {
        const now = readCompleteBody(req, limit);
        const read = now ?? (await readBody(req, limit));
        if (read.ok && !req.readableEnded) await once(req, 'end');
        resolve({ now, read, ended: req.readableEnded });
        res.end();
      });
    });
  });
  server!.listen(0, '127.0.0.1');
  await once(server!, 'listening');
  const socket = connect((server!.address() as AddressInfo).port, '127.0.0.1');
  for (const part of parts) {
    socket.write(part);
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  const result = await seen;
  socket.destroy();
  return result;
}

const head = (length: number) =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'héllo ✓' } });
const bytes = Buffer.byteLength(body);

describe('readCompleteBody', () => {
  it('reads a body that came with the headers at once, as readBody reads it, and the request still ends', async () => {
    const seen = await post([head(bytes) + body], 1024);
    expect(seen.now).toEqual({ ok: true, text: body });
    expect(seen.ended).toBe(true);
  });

  it('leaves a body still arriving to readBody, which reads all of it', async () => {
    const seen = await post([head(bytes) + body.slice(0, 10), body.slice(10)], 1024, 50);
    expect(seen.now).toBeUndefined();
    expect(seen.read).toEqual({ ok: true, text: body });
  });

  it('refuses a whole body over the limit, as readBody does', async () => {
    const seen = await post([head(bytes) + body], bytes - 1);
    expect(seen.now).toEqual({ ok: false, reason: 'too_large' });
  });

  it('leaves a chunked body to readBody', async () => {
    const chunked = `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${bytes.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const seen = await post([chunked], 1024);
    expect(seen.now).toBeUndefined();
    expect(seen.read).toEqual({ ok: true, text: body });
  });
});
