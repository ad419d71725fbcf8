import request from 'supertest';
import {
  BODY_TOO_LARGE_ANSWER,
  expectRpcError,
  legacyInitialize,
  legacyRequest,
  type McpTestRequest,
  modernRequest,
  rawPost,
} from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

/** libs/mcp/docs/ladder.md §2 rungs 1–9 and 13 against the real Kadu app, in both eras. */
let kadu: KaduTestApp;
let url: string;
let token: string;

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  const address = kadu.server.address() as { port: number };
  url = `http://127.0.0.1:${address.port}`;
  token = await kadu.token();
});
afterAll(() => kadu.close());

const ERAS: [string, () => McpTestRequest][] = [
  ['2026-07-28', () => modernRequest('server/discover')],
  ['2025', () => legacyInitialize()],
];

describe.each(ERAS)('transport rungs, %s era', (_era, build) => {
  const post = (r: McpTestRequest) => request(url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`);

  it('rung 1: a foreign Origin is refused with 403 before authentication', async () => {
    const r = build();
    const res = await request(url).post('/mcp').set(r.headers).set('Origin', 'http://evil.example.com').send(r.body);
    expectRpcError(res, 403, -32600, null);
    expect(res.body.error.message).toContain('http://evil.example.com');
  });

  it.each(['http://localhost:5173', 'http://127.0.0.1:9', 'http://[::1]:8080', 'http://localhost:3000'])(
    'rung 1: Origin %s is allowed',
    async (origin) => {
      const r = build();
      const res = await post(r).set('Origin', origin).send(r.body);
      expect(res.status).toBe(200);
    },
  );

  it('rung 1: the opaque origin "null" is refused', async () => {
    const r = build();
    expectRpcError(await post(r).set('Origin', 'null').send(r.body), 403, -32600, null);
  });

  it('rung 2: a declared Content-Length over 1 MiB gets the seed 413 body without the body being read', async () => {
    const r = build();
    // Headers only: the server must answer without waiting for a body that never comes.
    const res = await rawPost(`${url}/mcp`, { ...r.headers, 'Content-Length': String(1_048_577) }, () => undefined);
    expect(res.status).toBe(413);
    expect(res.body).toBe(BODY_TOO_LARGE_ANSWER);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('rung 2 comes before authentication', async () => {
    const r = build();
    const res = await rawPost(`${url}/mcp`, { ...r.headers, 'Content-Length': '5000000' }, () => undefined);
    expect(res.status).toBe(413);
  });

  it('rung 3: no token answers 401 before the method is looked at', async () => {
    const r = build();
    const res = await request(url).post('/mcp').set(r.headers).send(r.body);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer .*resource_metadata="http:\/\/localhost:3000\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'a bearer token is required' });
  });

  it('rung 3 comes before 405, 415 and parsing', async () => {
    expect((await request(url).get('/mcp')).status).toBe(401);
    expect((await request(url).post('/mcp').set('Content-Type', 'text/plain').send('x')).status).toBe(401);
    expect((await request(url).post('/mcp').set('Content-Type', 'application/json').send('{nope')).status).toBe(401);
  });

  it.each(['GET', 'DELETE'])('rung 4: %s answers 405 with Allow: POST after authentication', async (method) => {
    const r = build();
    const res = await request(url)
      [method === 'GET' ? 'get' : 'delete']('/mcp')
      .set(r.headers)
      .set('Authorization', `Bearer ${token}`);
    expectRpcError(res, 405, -32600, null);
    expect(res.headers.allow).toBe('POST');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'])(
    'rung 5: Content-Type %s answers 415',
    async (type) => {
      const r = build();
      const res = await post(r).set('Content-Type', type).send(JSON.stringify(r.body));
      expectRpcError(res, 415, -32600, null);
    },
  );

  it('rung 5: parameters such as charset are allowed', async () => {
    const r = build();
    const res = await post(r).set('Content-Type', 'Application/JSON; charset=utf-8').send(JSON.stringify(r.body));
    expect(res.status).toBe(200);
  });

  it('rung 6: a chunked body over 1 MiB is cut off with the seed 413 body', async () => {
    const r = build();
    const { 'Content-Type': type } = r.headers;
    const res = await rawPost(
      `${url}/mcp`,
      { 'Content-Type': type!, Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' },
      async (write, end) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.length) {
          if (!(await write(chunk))) return;
        }
        end();
      },
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(BODY_TOO_LARGE_ANSWER);
  });

  it('a body of 1 MiB exactly is read (the 100 KB parser default does not leak through)', async () => {
    const r = build();
    const json = JSON.stringify(r.body);
    const padded = json + ' '.repeat(1_048_576 - Buffer.byteLength(json));
    const res = await post(r).set('Content-Type', 'application/json').send(padded);
    expect(res.status).toBe(200);
  });

  it('rung 7: invalid JSON answers 400 -32700 with a null id', async () => {
    const r = build();
    expectRpcError(await post(r).send('{"jsonrpc":"2.0","id":1,'), 400, -32700, null);
  });

  it('rung 8: a batch answers 400 -32600 saying batching is not supported', async () => {
    const r = build();
    const res = await post(r).send([r.body]);
    expectRpcError(res, 400, -32600, null);
    expect(res.body.error.message).toMatch(/batch/i);
  });

  it.each([
    ['jsonrpc is not "2.0"', { jsonrpc: '1.0', id: 5, method: 'ping' }, 5],
    ['method is missing', { jsonrpc: '2.0', id: 'x' }, 'x'],
    ['method is not a string', { jsonrpc: '2.0', id: 6, method: 42 }, 6],
    ['id is an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, null],
    ['params is an array', { jsonrpc: '2.0', id: 7, method: 'tools/list', params: [] }, 7],
    ['the body is a string', 'hello', null],
    ['it is a response, not a request', { jsonrpc: '2.0', id: 8, result: {} }, 8],
  ])('rung 9: %s answers 400 -32600', async (_what, body, id) => {
    const r = build();
    expectRpcError(await post(r).send(JSON.stringify(body)), 400, -32600, id as string | number | null);
  });
});

describe('rung 13: notifications', () => {
  it('2025: notifications/initialized answers 202 with an empty body', async () => {
    const r = legacyRequest('notifications/initialized', {}, { notification: true });
    const res = await request(url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['mcp-protocol-version']).toBe('2025-06-18');
  });

  it('2026: a notification with the envelope answers 202 with an empty body', async () => {
    const r = modernRequest('notifications/cancelled', { requestId: 3 }, { notification: true });
    const res = await request(url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
  });
});
