import request from 'supertest';
import {
  expectRpcError,
  legacyInitialize,
  legacyRequest,
  modernRequest,
  type McpTestRequest,
  rawPost,
} from '@kobana/nest-mcp/testing';
import { McpLadderGuard } from '@kobana/nest-mcp/guards/ladder.guard.js';
import { startWireApp, type WireApp } from '../fixtures/wire-app/start.js';
import { SEED_413_BODY } from '../support/wire.js';

/** docs/ladder.md §2 rungs 1–9 and 13, in both eras, against the package's own wire app. */
let w: WireApp;
const TOKEN = 'reader-token';

beforeAll(async () => {
  w = await startWireApp();
});
afterAll(() => w.close());

const ERAS: [string, () => McpTestRequest][] = [
  ['2026-07-28', () => modernRequest('server/discover')],
  ['2025', () => legacyInitialize()],
];

describe.each(ERAS)('transport rungs, %s era', (_era, build) => {
  const post = (r: McpTestRequest) =>
    request(w.url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${TOKEN}`);

  it('rung 1: a foreign Origin is refused with 403 before authentication, naming the origin', async () => {
    const r = build();
    const res = await request(w.url).post('/mcp').set(r.headers).set('Origin', 'http://evil.example.com').send(r.body);
    expect(expectRpcError(res, 403, -32600, null).message).toContain('http://evil.example.com');
  });

  it.each(['http://localhost:5173', 'http://127.0.0.1:9', 'http://[::1]:8080', 'http://localhost:3000'])(
    'rung 1: Origin %s (localhost, or the public origin) is allowed',
    async (origin) => {
      const r = build();
      expect((await post(r).set('Origin', origin).send(r.body)).status).toBe(200);
    },
  );

  it('rung 1: the opaque origin "null" is refused', async () => {
    const r = build();
    expectRpcError(await post(r).set('Origin', 'null').send(r.body), 403, -32600, null);
  });

  it('rung 2: a declared Content-Length over 1 MiB gets the 413 body without the body being read, before authentication', async () => {
    const r = build();
    // Headers only, and no token: the server must answer without waiting for a body that never comes.
    const res = await rawPost(`${w.url}/mcp`, { ...r.headers, 'Content-Length': String(1_048_577) }, () => undefined);
    expect(res.status).toBe(413);
    expect(res.body).toBe(SEED_413_BODY);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.connection).toBe('close');
  });

  it("rung 3: no token, or an unknown one, answers the app's 401 challenge before the method is looked at", async () => {
    const r = build();
    const none = await request(w.url).post('/mcp').set(r.headers).send(r.body);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"',
    );
    expect(none.body).toEqual({ error: 'invalid_token', error_description: 'a bearer token is required' });
    const wrong = await request(w.url).post('/mcp').set(r.headers).set('Authorization', 'Bearer guess').send(r.body);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", resource_metadata="/);
  });

  it('rung 3 comes before 405, 415 and parsing', async () => {
    expect((await request(w.url).get('/mcp')).status).toBe(401);
    expect((await request(w.url).post('/mcp').set('Content-Type', 'text/plain').send('x')).status).toBe(401);
    expect((await request(w.url).post('/mcp').set('Content-Type', 'application/json').send('{nope')).status).toBe(401);
  });

  it.each(['GET', 'DELETE', 'PUT'])('rung 4: %s answers 405 with Allow: POST after authentication', async (method) => {
    const r = build();
    const res = await request(w.url)
      [method.toLowerCase() as 'get' | 'delete' | 'put']('/mcp')
      .set(r.headers)
      .set('Authorization', `Bearer ${TOKEN}`);
    expectRpcError(res, 405, -32600, null);
    expect(res.headers.allow).toBe('POST');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'])(
    'rung 5: Content-Type %s answers 415',
    async (type) => {
      const r = build();
      expectRpcError(await post(r).set('Content-Type', type).send(JSON.stringify(r.body)), 415, -32600, null);
    },
  );

  it('rung 5: parameters such as charset, and any case, are allowed', async () => {
    const r = build();
    const res = await post(r).set('Content-Type', 'Application/JSON; charset=utf-8').send(JSON.stringify(r.body));
    expect(res.status).toBe(200);
  });

  it('rung 6: a chunked body over 1 MiB is cut off with the 413 body', async () => {
    const r = build();
    const res = await rawPost(
      `${w.url}/mcp`,
      { ...r.headers, Authorization: `Bearer ${TOKEN}`, 'Transfer-Encoding': 'chunked' },
      async (write, end) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.length) if (!(await write(chunk))) return;
        end();
      },
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(SEED_413_BODY);
  });

  it('a body of 1 MiB exactly is read (the host parser’s 100 KB default does not apply)', async () => {
    const r = build();
    const json = JSON.stringify(r.body);
    const padded = json + ' '.repeat(1_048_576 - Buffer.byteLength(json));
    expect((await post(r).set('Content-Type', 'application/json').send(padded)).status).toBe(200);
  });

  it('a body that follows its headers, in pieces, gets the answer of one sent with them', async () => {
    // A body that came with its headers is taken at once (call/read-body.ts readCompleteBody): the
    // entry middleware hands the request on after the turn its bytes came in
    // (http/entry.middleware.ts), so the ladder answers `true` rather than a promise that Nest would
    // await through three more (bench/RESULTS.md, issue 32, nineteenth pass). One still on its way is
    // read as a stream: the client sees the same answer either way.
    const ladder = w.app.get(McpLadderGuard);
    const original = ladder.canActivate.bind(ladder);
    const answers: unknown[] = [];
    const spy = vi.spyOn(ladder, 'canActivate').mockImplementation((context) => {
      const answer = original(context);
      answers.push(answer);
      return answer;
    });
    try {
      const r = build();
      const bytes = Buffer.from(JSON.stringify(r.body));
      const headers = { ...r.headers, Authorization: `Bearer ${TOKEN}`, 'Content-Length': String(bytes.length) };
      // One write: the client sends the head and the body in one segment.
      const together = await rawPost(`${w.url}/mcp`, headers, async (write, end) => {
        await write(bytes);
        end();
      });
      const apart = await rawPost(`${w.url}/mcp`, headers, async (write, end) => {
        await write(bytes.subarray(0, 10));
        await new Promise((wrote) => setTimeout(wrote, 20));
        await write(bytes.subarray(10));
        end();
      });
      expect(together.status).toBe(200);
      expect(apart.status).toBe(together.status);
      for (const name of ['content-type', 'content-length', 'cache-control', 'mcp-protocol-version'])
        expect(apart.headers[name]).toEqual(together.headers[name]);
      expect(apart.body).toBe(together.body);
      expect(answers[0]).toBe(true);
      expect(answers[1]).toBeInstanceOf(Promise);
    } finally {
      spy.mockRestore();
    }
  });

  it('rung 6a: 64 levels of JSON pass; 65 and 100 000 answer 400 -32600 with data.max_depth, unparsed', async () => {
    const r = build();
    const nested = (levels: number) => {
      // The body is the first level; a member beside its `params` holds the other levels.
      const text = JSON.stringify(r.body);
      return `${text.slice(0, -1)},"deep":${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}}`;
    };
    expect((await post(r).set('Content-Type', 'application/json').send(nested(64))).status).toBe(200);
    for (const levels of [65, 100_000]) {
      const res = await post(r).set('Content-Type', 'application/json').send(nested(levels));
      const error = expectRpcError(res, 400, -32600, null);
      expect(error).toEqual({
        code: -32600,
        message: 'Invalid Request: JSON nested deeper than 64 levels',
        data: { max_depth: 64 },
      });
    }
  });

  it('rung 7: invalid JSON answers 400 -32700 with a null id', async () => {
    const r = build();
    expectRpcError(await post(r).send('{"jsonrpc":"2.0","id":1,'), 400, -32700, null);
  });

  it('rung 8: a batch answers 400 -32600 saying batching is not supported', async () => {
    const r = build();
    expect(expectRpcError(await post(r).send([r.body]), 400, -32600, null).message).toMatch(/batch/i);
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

describe('rung 13: notifications answer 202 with an empty body', () => {
  it.each([
    ['2025', legacyRequest('notifications/initialized', {}, { notification: true }), '2025-06-18'],
    ['2026', modernRequest('notifications/cancelled', { requestId: 3 }, { notification: true }), '2026-07-28'],
  ])('%s', async (_era, r, version) => {
    const res = await request(w.url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${TOKEN}`).send(r.body);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['mcp-protocol-version']).toBe(version);
  });
});
