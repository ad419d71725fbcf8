import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ListenStreams, McpArg, McpEvents, McpModule, McpResourceTemplate } from '@kobana/nest-mcp';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { modernRequest } from '@kobana/nest-mcp/testing';

/**
 * A listener that stops reading: the server ends its stream once `maxBufferedBytes` are queued,
 * resets its connection when the last message has not left within `closeTimeoutMs`, and counts
 * its slot until the connection has closed — so one caller never holds more connections than
 * `maxStreamsPerPrincipal`, however many streams it opens and abandons.
 */
@Injectable()
class Items {
  @McpResourceTemplate({ uriTemplate: 'test://items/{id}', name: 'item', bind: { id: 'id' } })
  item(@McpArg('id') id: string) {
    return { id };
  }
}

const URI = 'test://items/1';
const LIMIT = 10; // the default maxStreamsPerPrincipal
const CLOSE_TIMEOUT_MS = 1000;
// Every stream here is the same caller: no authentication, so the principal key is 'anonymous'.
const CALLER = 'anonymous';

interface Answer {
  socket: Socket;
  status: number;
  retryAfter?: string;
  body: string;
}

/**
 * A listen request over a raw socket: reads the answer's head and, for a stream, up to its
 * acknowledgement — then never reads again (the socket is paused: the kernel's receive window fills
 * and the server's writes back up). A refusal is read whole.
 */
function stalledListen(port: number, id: number): Promise<Answer> {
  const r = modernRequest('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] } }, { id });
  const body = JSON.stringify(r.body);
  const head = Object.entries({ ...r.headers, Host: 'localhost', 'Content-Length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const socket = connect(port, '127.0.0.1');
  return new Promise<Answer>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no answer to listen ${id}: ${text.slice(0, 300)}`)), 15_000);
    socket.on('error', () => undefined); // a reset of a stalled stream is the point of the test
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      const retryAfter = /\r\nretry-after: *([^\r]*)/i.exec(text.slice(0, end))?.[1];
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      const done =
        status === 200 ? text.includes('notifications/subscriptions/acknowledged') : text.length >= end + 4 + length;
      if (!done) return;
      if (status === 200) socket.pause();
      clearTimeout(timer);
      resolve({ socket, status, retryAfter, body: text.slice(end + 4) });
    });
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n${body}`);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('listen: a stream that stops reading', () => {
  let app: INestApplication;
  let port: number;
  /** The server's side of every connection that is still open. */
  const live = new Set<Socket>();

  beforeAll(async () => {
    @Module({
      imports: [
        McpModule.forRoot({
          serverInfo: { name: 't', version: '1' },
          rateLimits: { general: false, writes: false, failedAuth: false },
          subscriptions: { resourceSubscriptions: true, maxBufferedBytes: 64 * 1024, closeTimeoutMs: CLOSE_TIMEOUT_MS },
        }),
      ],
      providers: [Items],
    })
    class AppModule {}
    app = await NestFactory.create(AppModule, new StableExpressAdapter(), { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    const server = app.getHttpServer() as Server;
    server.on('connection', (s: Socket) => {
      live.add(s);
      s.once('close', () => live.delete(s));
    });
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => app?.close());

  it('a dropped stream keeps its slot until its connection closes: 50 streams never read by one member hold at most 10 connections, the rest get 429 + Retry-After, and the connections are reset within closeTimeoutMs', async () => {
    const baseline = live.size;
    const streams = app.get(ListenStreams);
    const events = app.get(McpEvents);
    // Large updates, so that a stream that does not read overflows its buffer quickly.
    const pad = 'x'.repeat(256 * 1024);
    const publisher = setInterval(() => void events.resourceUpdated(URI, { meta: { pad } }), 10);
    const clients: Socket[] = [];
    const streamPorts = new Set<number>();
    let opened = 0;
    let refused = 0;
    /** The stream connections the server still holds, and the caller's count must cover them. */
    const check = (): void => {
      const held = [...live].filter((s) => streamPorts.has(s.remotePort!)).length;
      expect(held).toBeLessThanOrEqual(LIMIT);
      expect(streams.countOf(CALLER)).toBeGreaterThanOrEqual(held);
    };
    // 50 attempts, and on a machine fast enough to make them all before the first abandoned
    // connection is reset (closeTimeoutMs after its buffer overflowed), more until one slot came
    // back: what is asserted is that slots return, not how quickly 50 requests are made.
    const openUntil = Date.now() + 20 * CLOSE_TIMEOUT_MS;
    try {
      for (let i = 0; i < 50 || (opened <= LIMIT && Date.now() < openUntil); i++) {
        const answer = await stalledListen(port, i);
        clients.push(answer.socket);
        if (answer.status === 200) {
          opened++;
          streamPorts.add(answer.socket.localPort!);
        } else {
          refused++;
          expect(answer.status).toBe(429);
          expect(answer.retryAfter).toBe('1');
          expect(JSON.parse(answer.body)).toEqual({
            jsonrpc: '2.0',
            id: i,
            error: {
              code: -32600,
              message: `Too many open subscription streams: at most ${LIMIT} per caller; close one first`,
              data: { limit: LIMIT, retry_after: 1 },
            },
          });
          answer.socket.destroy();
        }
        check();
        await sleep(20);
      }
      expect(refused).toBeGreaterThan(0);
      // Slots came back as the abandoned connections were reset: more than the limit opened in all.
      expect(opened).toBeGreaterThan(LIMIT);
      // The streams still open overflow in turn; every connection is gone within the bound.
      const deadline = Date.now() + CLOSE_TIMEOUT_MS + 10_000;
      while ((live.size > baseline || streams.countOf(CALLER) > 0) && Date.now() < deadline) {
        check();
        await sleep(50);
      }
    } finally {
      clearInterval(publisher);
      for (const c of clients) c.destroy();
    }
    expect(live.size).toBe(baseline);
    expect(streams.countOf(CALLER)).toBe(0);
    expect(streams.size).toBe(0);
  }, 120_000);

  it('a stream ended while its client still reads gets its last message, and its slot is freed at once', async () => {
    // Not stalled: the client reads everything, so the end result leaves and nothing is cut.
    const streams = app.get(ListenStreams);
    const answer = await stalledListen(port, 99);
    expect(answer.status).toBe(200);
    let text = answer.body;
    answer.socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    answer.socket.resume();
    streams.endAll();
    // The response ends with its last chunk; the connection itself stays open (keep-alive).
    for (let i = 0; i < 200 && !text.endsWith('\r\n0\r\n\r\n'); i++) await sleep(25);
    expect(text).toContain(`"id":99,"result":{"resultType":"complete"`);
    expect(text.endsWith('\r\n0\r\n\r\n')).toBe(true);
    for (let i = 0; i < 200 && streams.countOf(CALLER) > 0; i++) await sleep(25);
    expect(streams.countOf(CALLER)).toBe(0);
    expect(answer.socket.destroyed).toBe(false);
    answer.socket.destroy();
  });
});
