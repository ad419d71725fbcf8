import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Response } from 'express';
import { sendJson } from './send.js';

type Handler = (req: IncomingMessage, res: Response) => void;

/** A real HTTP server whose every request is answered by `handler` (Node's response is what Express extends). */
async function serve(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => handler(req, res as unknown as Response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  bytes: Buffer;
}

function post(url: string, body = '{}', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
  });
}

describe('sendJson', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await close(server);
    server = undefined;
  });

  it('commits the head at once and writes the bytes after the turn, whole, with their UTF-8 length', async () => {
    const seen: { headersSent: boolean; endedAtReturn: boolean; endedAfterTurn?: boolean }[] = [];
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'olá — ✓' } });
    ({ server } = await serve((_req, res) => {
      sendJson(res, 200, text);
      const state: (typeof seen)[number] = { headersSent: res.headersSent, endedAtReturn: res.writableEnded };
      seen.push(state);
      setImmediate(() => (state.endedAfterTurn = res.writableEnded));
    }));
    const answer = await post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(answer.bytes.toString('utf8')).toBe(text);
    expect(seen).toEqual([{ headersSent: true, endedAtReturn: false, endedAfterTurn: true }]);
  });

  it('sends pre-encoded parts as they are, gzip-coded, varying on Accept-Encoding', async () => {
    const whole = JSON.stringify({ jsonrpc: '2.0', id: 'a', result: { tools: ['x'.repeat(2000)] } });
    const coded = gzipSync(whole);
    const parts = [coded.subarray(0, 10), coded.subarray(10, 500), coded.subarray(500)];
    ({ server } = await serve((_req, res) => {
      res.setHeader('Vary', 'Origin');
      sendJson(res, 200, parts, 'gzip');
    }));
    const answer = await post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.vary).toBe('Origin, Accept-Encoding');
    expect(answer.headers['content-length']).toBe(String(coded.length));
    expect(gunzipSync(answer.bytes).toString('utf8')).toBe(whole);
  });

  it('keeps the first answer when a second one is sent before the first has left', async () => {
    ({ server } = await serve((_req, res) => {
      sendJson(res, 200, '{"first":true}');
      sendJson(res, 500, '{"second":true}');
    }));
    const answer = await post(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(answer.status).toBe(200);
    expect(answer.bytes.toString('utf8')).toBe('{"first":true}');
  });

  it('answers many connections of one turn each with its own body', async () => {
    ({ server } = await serve((req, res) => {
      void readBody(req).then((text) => {
        const { id } = JSON.parse(text) as { id: number };
        sendJson(res, 200, JSON.stringify({ jsonrpc: '2.0', id, result: { echoed: id } }));
      });
    }));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const answers = await Promise.all(ids.map((id) => post(url, JSON.stringify({ id }))));
    expect(answers.map((a) => JSON.parse(a.bytes.toString('utf8')) as unknown)).toEqual(
      ids.map((id) => ({ jsonrpc: '2.0', id, result: { echoed: id } })),
    );
  });

  it('answers pipelined requests of one connection in their order, those queued behind another too', async () => {
    const queued: boolean[] = [];
    ({ server } = await serve((req, res) => {
      // Answered as soon as the request's head is read, so the next request of the same packet
      // finds this answer still waiting for its turn: Node queues it, with no socket yet.
      queued.push(res.socket === null);
      sendJson(res, 200, JSON.stringify({ n: Number(req.headers['x-n']) }));
    }));
    const port = (server.address() as AddressInfo).port;
    const one = (n: number) =>
      `POST / HTTP/1.1\r\nHost: x\r\nX-N: ${n}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(one(1) + one(2) + one(3)));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.endsWith('{"n":3}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    expect([...received.matchAll(/\r\n\r\n(\{"n":\d\})/g)].map((m) => m[1])).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(queued).toEqual([false, true, true]);
  });

  it('leaves alone an answer that other code ended before the turn ended: no second end, no error', async () => {
    const errors: unknown[] = [];
    const queued: boolean[] = [];
    let settled!: () => void;
    const afterTurns = new Promise<void>((resolve) => (settled = resolve));
    ({ server } = await serve((req, res) => {
      res.on('error', (error) => errors.push(error));
      queued.push(res.socket === null);
      sendJson(res, 200, JSON.stringify({ n: req.headers['x-n'] }));
      if (req.headers['x-n'] !== '2') return;
      // What Nest's default filter does when the headers were already sent; the answer is queued
      // behind the first one of the connection, where a second end is an 'error' event.
      res.end();
      setImmediate(() => setImmediate(() => setTimeout(settled, 50)));
    }));
    const port = (server.address() as AddressInfo).port;
    const one = (n: number) =>
      `POST / HTTP/1.1\r\nHost: x\r\nX-N: ${n}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(one(1) + one(2)));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    await afterTurns;
    socket.destroy();
    expect(queued).toEqual([false, true]);
    expect(received).toContain('{"n":"1"}');
    expect(received).not.toContain('{"n":"2"}');
    expect(errors).toEqual([]);
  });

  it('does not write to a connection gone before the turn ended, and goes on serving', async () => {
    const errors: unknown[] = [];
    const gone: { destroyed: boolean; ended: boolean }[] = [];
    ({ server } = await serve((req, res) => {
      res.on('error', (error) => errors.push(error));
      if (req.headers['x-vanish'] === '1') {
        req.socket.destroy();
        sendJson(res, 200, '{"lost":true}');
        setImmediate(() => setImmediate(() => gone.push({ destroyed: res.destroyed, ended: res.writableEnded })));
        return;
      }
      sendJson(res, 200, '{"ok":true}');
    }));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(post(url, '{}', { 'x-vanish': '1' })).rejects.toThrow(/socket hang up|ECONNRESET/);
    const next = await post(url);
    expect(next.bytes.toString('utf8')).toBe('{"ok":true}');
    expect(gone).toEqual([{ destroyed: true, ended: false }]);
    expect(errors).toEqual([]);
  });
});
