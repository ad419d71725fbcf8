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

/**
 * libs/mcp/docs/security.md: "every response has a request id that the logs carry" — a fresh
 * version 4 UUID per request (src/common/request-id.ts), or the client's X-Request-Id when it is
 * 8–128 characters of A–Z a–z 0–9 . _ - (the OpenAPI description's promise), at both doors.
 */
describe('Request-Id on both doors', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const mcp = (extra: Record<string, string> = {}) => {
    const r = build('2026');
    return request(url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).set(extra).send(r.body);
  };
  let apiToken: string;
  beforeAll(async () => {
    apiToken = await kadu.token({ audience: 'api' });
  });
  const rest = (extra: Record<string, string> = {}) =>
    request(url).get('/api/v1/me').set('Authorization', `Bearer ${apiToken}`).set(extra);

  it.each([
    ['MCP', mcp],
    ['REST', rest],
  ])('%s: a new UUID on every response, none repeated', async (_door, send) => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => send()));
    const ids = answers.map((res) => {
      expect(res.status).toBe(200);
      return String(res.headers['request-id']);
    });
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ['MCP', mcp],
    ['REST', rest],
  ])("%s: the client's own X-Request-Id is kept when it is safe, replaced when it is not", async (_door, send) => {
    expect((await send({ 'X-Request-Id': 'trace.42_abc-DEF' })).headers['request-id']).toBe('trace.42_abc-DEF');
    for (const unsafe of ['short', 'has space in it', 'x'.repeat(129), 'semi;colon-here']) {
      const res = await send({ 'X-Request-Id': unsafe });
      expect(res.status).toBe(200);
      expect(res.headers['request-id']).toMatch(UUID_V4);
    }
  });

  // Set before any route runs (src/common/http-setup.ts): answers that no controller gives carry it too.
  it('on answers no route gives: an unknown path, a refused body, an oversized body, a refused token', async () => {
    const post = () =>
      request(url)
        .post('/api/v1/tasks')
        .set('Authorization', `Bearer ${apiToken}`)
        .set('Content-Type', 'application/json');
    const answers = [
      await request(url).get('/no/such/path'),
      await post().send('{"name":'),
      await post().send(JSON.stringify({ name: 'x'.repeat(1_100_000) })),
      await request(url).get('/api/v1/me').set('Authorization', 'Bearer not-a-token'),
    ];
    expect(answers.map((res) => res.status)).toEqual([404, 400, 413, 401]);
    expect(answers.map((res) => (res.body as { errors?: { code: string }[] }).errors?.[0]?.code)).toEqual([
      'not_found',
      'invalid_json',
      'payload_too_large',
      'unauthorized',
    ]);
    for (const res of answers) expect(res.headers['request-id']).toMatch(UUID_V4);
  });
});
