import request from 'supertest';
import {
  BODY_TOO_LARGE_ANSWER,
  expectRpcError,
  legacyRequest,
  type McpTestRequest,
  modernRequest,
  rawPost,
} from '@kobana/nest-mcp/testing';
import { DATABASE, type Database } from '../../src/db/database.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, type Era, KaduClient } from '../support/kadu-client.js';

/**
 * libs/mcp/docs/ladder.md §2: "every response, success or error, carries Cache-Control: no-store and
 * MCP-Protocol-Version whenever a revision could be determined" — pinned on every rung, in both
 * eras, against the Kadu app (the revision comes from the request's header here). Rung 10 is in
 * rate-limits.e2e-spec.ts, rung 11 in wire-era.e2e-spec.ts.
 */
let kadu: KaduTestApp;
let url: string;
let token: string;

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${(kadu.server.address() as { port: number }).port}`;
  token = await kadu.token();
});
afterAll(() => kadu.close());

const VERSION: Record<Era, string> = { '2026': '2026-07-28', '2025': '2025-06-18' };
const build = (
  era: Era,
  method = 'tools/list',
  params: Record<string, unknown> = {},
  id: string | number = 'h',
): McpTestRequest => (era === '2026' ? modernRequest(method, params, { id }) : legacyRequest(method, params, { id }));

function expectHeaders(res: { status: number; headers: Record<string, unknown> }, era: Era): void {
  expect(res.headers['cache-control'], `status ${res.status}`).toBe('no-store');
  expect(res.headers['mcp-protocol-version'], `status ${res.status}`).toBe(VERSION[era]);
}

describe.each(ERAS)('every rung carries no-store and the revision, %s era', (era) => {
  const post = (r: McpTestRequest, bearer: string | null = token) => {
    const req = request(url).post('/mcp').set(r.headers);
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
      `${url}/mcp`,
      { ...r.headers, Authorization: `Bearer ${token}`, 'Content-Length': '5000000' },
      () => undefined,
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(BODY_TOO_LARGE_ANSWER);
    expectHeaders(res, era);
  });

  it('rung 3: no token, and a refused one', async () => {
    const r = build(era);
    for (const bearer of [null, 'not-a-jwt']) {
      const res = await post(r, bearer).send(r.body);
      expect(res.status).toBe(401);
      expectHeaders(res, era);
    }
  });

  it('rung 4: GET', async () => {
    const r = build(era);
    const res = await request(url).get('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`);
    expectRpcError(res, 405, -32600, null);
    expect(res.headers.allow).toBe('POST');
    expectHeaders(res, era);
  });

  it('rung 5: a Content-Type that is not JSON', async () => {
    const r = build(era);
    const res = await post(r).set('Content-Type', 'text/plain').send(JSON.stringify(r.body));
    expectRpcError(res, 415, -32600, null);
    expectHeaders(res, era);
  });

  it('rungs 7–9: not JSON, a batch, not JSON-RPC', async () => {
    const r = build(era);
    const cases: [string, number, number][] = [
      ['{"jsonrpc":', 400, -32700],
      [JSON.stringify([r.body]), 400, -32600],
      [JSON.stringify({ ...r.body, jsonrpc: '1.0' }), 400, -32600],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(r).set('Content-Type', 'application/json').send(body);
      expectRpcError(res, status, code, code === -32700 || body.startsWith('[') ? null : 'h');
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
    expect(res.text).toBe('');
    expectHeaders(res, era);
  });

  it('rung 14: a method this era does not have', async () => {
    const r = build(era, era === '2026' ? 'ping' : 'server/discover');
    const res = await post(r).send(r.body);
    expectRpcError(res, era === '2026' ? 404 : 200, -32601, 'h');
    expectHeaders(res, era);
  });

  it('rung 15: a handler error (unknown tool)', async () => {
    const r = build(era, 'tools/call', { name: 'kadu_nope', arguments: {} });
    const res = await post(r).send(r.body);
    expectRpcError(res, 200, -32602, 'h');
    expectHeaders(res, era);
  });

  it('a success', async () => {
    const r = build(era);
    const res = await post(r).send(r.body);
    expect(res.status).toBe(200);
    expectHeaders(res, era);
  });
});

describe.each(ERAS)('rung 16 against Kadu, %s era', (era) => {
  it('a record damaged under the app makes the handler fail: 500 -32603 with the id and no internal detail', async () => {
    const owner = new KaduClient(kadu, { user: `damaged-${era}@acme.test`, org: `damaged-${era}` });
    const task = (await owner.rest('post', '/api/v1/tasks', { name: 'damaged', kind: 'echo', cost_cap: 1 })).body.data;
    // Bytes deleted under a record: its launch policy is gone, which no API call can produce.
    await (kadu.app.get(DATABASE) as Database).query(`update tasks set launch_policy = 'null'::jsonb where id = $1`, [
      task.id,
    ]);
    const r = build(era, 'resources/read', { uri: 'kobana://kadu/tasks' }, 'd16');
    const mine = await kadu.token({ user: `damaged-${era}@acme.test`, org: `damaged-${era}` });
    const res = await request(url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${mine}`).send(r.body);
    expectRpcError(res, 500, -32603, 'd16');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['mcp-protocol-version']).toBe(VERSION[era]);
    // The request id ties the answer to the logged failure; nothing else of it is said.
    expect(res.body.error.message).toBe(`Internal error (request id ${res.headers['request-id']})`);
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.error.data).toBeUndefined();
    expect(res.text).not.toMatch(/TypeError|launch_policy|roles|\/work\/|\.ts:|at /);
    // Other callers are unaffected.
    expect((await new KaduClient(kadu).mcp(era, 'resources/read', { uri: 'kobana://kadu/tasks' })).status).toBe(200);
  });
});
