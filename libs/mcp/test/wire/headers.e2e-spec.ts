import request from 'supertest';
import { expectRpcError, legacyRequest, modernRequest, type McpTestRequest, rawPost } from '@kobana/nest-mcp/testing';
import { startWireApp, type WireApp } from '../fixtures/wire-app/start.js';
import { SEED_413_BODY } from '../support/wire.js';

/**
 * docs/ladder.md §2: every answer, success or error, carries `Cache-Control: no-store`, and
 * `MCP-Protocol-Version` once a revision is known (here from the request's header) — pinned on every
 * rung in both eras; and rung 16, the unexpected failure, on the package's wire app.
 */
let w: WireApp;
const TOKEN = 'reader-token';

beforeAll(async () => {
  w = await startWireApp();
});
afterAll(() => w.close());

type Era = '2026' | '2025';
const ERAS: Era[] = ['2026', '2025'];
const VERSION: Record<Era, string> = { '2026': '2026-07-28', '2025': '2025-06-18' };
const build = (era: Era, method = 'tools/list', params: Record<string, unknown> = {}, id: string | number = 'h') =>
  era === '2026' ? modernRequest(method, params, { id }) : legacyRequest(method, params, { id });

function expectHeaders(res: { status: number; headers: Record<string, unknown> }, era: Era): void {
  expect(res.headers['cache-control'], `status ${res.status}`).toBe('no-store');
  expect(res.headers['mcp-protocol-version'], `status ${res.status}`).toBe(VERSION[era]);
}

describe.each(ERAS)('every rung carries no-store and the revision, %s era', (era) => {
  const post = (r: McpTestRequest, bearer: string | null = TOKEN) => {
    const req = request(w.url).post('/mcp').set(r.headers);
    return bearer === null ? req : req.set('Authorization', `Bearer ${bearer}`);
  };

  it('rung 1: a foreign Origin', async () => {
    const r = build(era);
    const res = await post(r).set('Origin', 'https://evil.example').send(r.body);
    expectRpcError(res, 403, -32600, null);
    expectHeaders(res, era);
  });

  it('rung 2: a declared body over 1 MiB', async () => {
    const r = build(era);
    const res = await rawPost(
      `${w.url}/mcp`,
      { ...r.headers, Authorization: `Bearer ${TOKEN}`, 'Content-Length': '5000000' },
      () => undefined,
    );
    expect(res.body).toBe(SEED_413_BODY);
    expectHeaders(res, era);
  });

  it("rung 3: the app's 401, without a token and with a refused one", async () => {
    const r = build(era);
    for (const bearer of [null, 'not-a-token']) {
      const res = await post(r, bearer).send(r.body);
      expect(res.status).toBe(401);
      expectHeaders(res, era);
    }
  });

  it('rung 4: GET', async () => {
    const r = build(era);
    const res = await request(w.url).get('/mcp').set(r.headers).set('Authorization', `Bearer ${TOKEN}`);
    expectRpcError(res, 405, -32600, null);
    expectHeaders(res, era);
  });

  it('rung 5: a Content-Type that is not JSON', async () => {
    const r = build(era);
    const res = await post(r).set('Content-Type', 'text/plain').send(JSON.stringify(r.body));
    expectRpcError(res, 415, -32600, null);
    expectHeaders(res, era);
  });

  it('rung 6: a chunked body over the limit', async () => {
    const r = build(era);
    const res = await rawPost(
      `${w.url}/mcp`,
      { ...r.headers, Authorization: `Bearer ${TOKEN}`, 'Transfer-Encoding': 'chunked' },
      async (write, end) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < 2 * 1024 * 1024; sent += chunk.length) if (!(await write(chunk))) return;
        end();
      },
    );
    expect(res.status).toBe(413);
    expectHeaders(res, era);
  });

  it('rungs 6a–9: too deep, not JSON, a batch, not JSON-RPC', async () => {
    const r = build(era);
    const cases: [string, number, number, string | null][] = [
      [`{"a":${'['.repeat(70)}${']'.repeat(70)}}`, 400, -32600, null],
      ['{"jsonrpc":', 400, -32700, null],
      [JSON.stringify([r.body]), 400, -32600, null],
      [JSON.stringify({ ...r.body, jsonrpc: '1.0' }), 400, -32600, 'h'],
    ];
    for (const [body, status, code, id] of cases) {
      const res = await post(r).set('Content-Type', 'application/json').send(body);
      expectRpcError(res, status, code, id);
      expectHeaders(res, era);
    }
  });

  it('rung 13: a notification', async () => {
    const r =
      era === '2026'
        ? modernRequest('notifications/initialized', {}, { notification: true })
        : legacyRequest('notifications/initialized', {}, { notification: true });
    const res = await post(r).send(r.body);
    expect(res.status).toBe(202);
    expectHeaders(res, era);
  });

  it('rung 14: a method this era does not have', async () => {
    const r = build(era, era === '2026' ? 'ping' : 'server/discover');
    const res = await post(r).send(r.body);
    expectRpcError(res, era === '2026' ? 404 : 200, -32601, 'h');
    expectHeaders(res, era);
  });

  it('rung 15: a handler error (unknown tool)', async () => {
    const r = build(era, 'tools/call', { name: 'nope', arguments: {} });
    const res = await post(r).send(r.body);
    expectRpcError(res, 200, -32602, 'h');
    expectHeaders(res, era);
  });

  it('a success', async () => {
    const r = build(era);
    const res = await post(r).send(r.body);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectHeaders(res, era);
  });
});

describe.each(ERAS)('rung 16: an unexpected failure outside a tool, %s era', (era) => {
  it('answers 500 -32603 with the id and the request id only, and other requests are unaffected', async () => {
    const r = build(era, 'resources/read', { uri: 'wire://ledger' }, 'd16');
    const res = await request(w.url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${TOKEN}`).send(r.body);
    const error = expectRpcError(res, 500, -32603, 'd16');
    expectHeaders(res, era);
    // The request id ties the answer to the logged failure; nothing else of it is said.
    expect(error.message).toMatch(/^Internal error \(request id [0-9a-f-]{36}\)$/);
    expect(error.data).toBeUndefined();
    expect(res.text).not.toMatch(/TypeError|rows|\/srv\/|\.ts:/);
    // The app's own request id (X-Request-Id) is the one quoted.
    const traced = await request(w.url)
      .post('/mcp')
      .set(r.headers)
      .set({ Authorization: `Bearer ${TOKEN}`, 'X-Request-Id': 'req-4711' })
      .send(r.body);
    expect(expectRpcError(traced, 500, -32603, 'd16').message).toBe('Internal error (request id req-4711)');
    const fine = build(era, 'resources/read', { uri: 'wire://status' }, 'ok');
    const again = await request(w.url)
      .post('/mcp')
      .set(fine.headers)
      .set('Authorization', `Bearer ${TOKEN}`)
      .send(fine.body);
    expect(again.status).toBe(200);
  });
});
