import request from 'supertest';
import {
  expectRpcError,
  expectRpcResult,
  legacyRequest,
  type McpTestRequest,
  modernRequest,
} from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

/** libs/mcp/docs/ladder.md §2 rungs 11–15 against the real Kadu app. */
let kadu: KaduTestApp;
let token: string;

beforeAll(async () => {
  kadu = await startKadu();
  token = await kadu.token();
});
afterAll(() => kadu.close());

const send = (r: McpTestRequest, headers: Record<string, string | undefined> = {}) => {
  const req = request(kadu.server).post('/mcp').set('Authorization', `Bearer ${token}`);
  for (const [name, value] of Object.entries({ ...r.headers, ...headers }))
    if (value !== undefined) req.set(name, value);
  return req.send(r.body);
};

const META = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

describe('rung 11: era classification', () => {
  it('a request is 2026-era when _meta holds the protocolVersion key', async () => {
    const r = modernRequest('tools/list', {}, { id: 'm1' });
    const res = await send(r);
    expect(expectRpcResult(res, 'm1').resultType).toBe('complete');
    expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
  });

  it('a 2025 request carrying _meta.progressToken stays 2025', async () => {
    const r = legacyRequest('tools/list', { _meta: { progressToken: 'p1' } }, { id: 'l1' });
    const res = await send(r);
    const result = expectRpcResult(res, 'l1');
    expect(result.resultType).toBeUndefined();
    expect(res.headers['mcp-protocol-version']).toBe('2025-06-18');
  });

  it('a 2025 request without the version header is 2025-03-26', async () => {
    const res = await send(legacyRequest('ping', {}, { id: 2, protocolVersion: null }));
    expect(expectRpcResult(res, 2)).toEqual({});
    expect(res.headers['mcp-protocol-version']).toBe('2025-03-26');
  });
});

describe('rung 11a: a malformed 2026 envelope answers 400 -32602', () => {
  const cases: [string, (meta: Record<string, unknown>) => void][] = [
    ['protocolVersion is not a string', (m) => void (m[META] = 20260728)],
    ['clientCapabilities is missing', (m) => void delete m[CAPS]],
    ['clientCapabilities is not an object', (m) => void (m[CAPS] = 'all')],
    ['clientInfo lacks a version', (m) => void (m['io.modelcontextprotocol/clientInfo'] = { name: 'x' })],
    ['clientInfo is a string', (m) => void (m['io.modelcontextprotocol/clientInfo'] = 'x')],
  ];
  it.each(cases)('%s', async (_what, mutate) => {
    const r = modernRequest('server/discover', {}, { id: 11 });
    mutate(r.body.params._meta as Record<string, unknown>);
    expectRpcError(await send(r), 400, -32602, 11);
  });

  it('clientInfo may be absent', async () => {
    const r = modernRequest('server/discover', {}, { id: 12, clientInfo: null });
    expectRpcResult(await send(r), 12);
  });
});

describe('rungs 11b–11e: versions', () => {
  it('11b: header ≠ envelope version answers -32020 (before the version gate)', async () => {
    const r = modernRequest('server/discover', {}, { id: 21, protocolVersion: 'v999.0.0' });
    const res = await send(r, { 'MCP-Protocol-Version': '2026-07-28' });
    expectRpcError(res, 400, -32020, 21);
    expect(res.body.error.message).toMatch(/^Header mismatch: /);
  });

  it.each(['1999-01-01', '2025-11-25', '2025-06-18'])(
    '11c: envelope version %s is unsupported: -32022 with supported/requested',
    async (v) => {
      const r = modernRequest('server/discover', {}, { id: 22, protocolVersion: v });
      const res = await send(r);
      expectRpcError(res, 400, -32022, 22);
      expect(res.body.error.message).toBe('Unsupported protocol version');
      expect(res.body.error.data).toEqual({ supported: ['2026-07-28', '2025-06-18', '2025-03-26'], requested: v });
    },
  );

  it('11d: a 2026 header without the envelope answers -32602 and never falls back to 2025', async () => {
    const r = legacyRequest('tools/list', {}, { id: 23, protocolVersion: '2026-07-28' });
    const res = await send(r, { 'Mcp-Method': 'tools/list' });
    expectRpcError(res, 400, -32602, 23);
    expect(res.body.error.message).toMatch(/envelope/);
  });

  it.each(['2025-11-25', '1999-01-01'])('11e: a 2025 request with header %s (not served) answers -32022', async (v) => {
    const res = await send(legacyRequest('tools/list', {}, { id: 24, protocolVersion: v }));
    expectRpcError(res, 400, -32022, 24);
    expect(res.body.error.data).toEqual({ supported: ['2026-07-28', '2025-06-18', '2025-03-26'], requested: v });
  });
});

describe('rung 12: HeaderMatchGuard (2026 only)', () => {
  it('MCP-Protocol-Version missing answers -32020', async () => {
    const res = await send(modernRequest('tools/list', {}, { id: 31 }), { 'MCP-Protocol-Version': undefined });
    expectRpcError(res, 400, -32020, 31);
  });

  it('Mcp-Method missing answers -32020', async () => {
    const res = await send(modernRequest('tools/list', {}, { id: 32 }), { 'Mcp-Method': undefined });
    expectRpcError(res, 400, -32020, 32);
  });

  it.each(['prompts/list', 'TOOLS/LIST', 'tools/list/'])(
    'Mcp-Method %s on a tools/list body answers -32020',
    async (value) => {
      const res = await send(modernRequest('tools/list', {}, { id: 33 }), { 'Mcp-Method': value });
      expectRpcError(res, 400, -32020, 33);
      expect(res.body.error.message).toContain(value);
    },
  );

  it('header names are case-insensitive and values are trimmed', async () => {
    const r = modernRequest('tools/list', {}, { id: 34 });
    const req = request(kadu.server)
      .post('/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .set('MCP-METHOD', '  tools/list  ')
      .set('mcp-protocol-version', ' 2026-07-28');
    expectRpcResult(await req.send(r.body), 34);
  });

  it('tools/call without Mcp-Name answers -32020', async () => {
    const res = await send(modernRequest('tools/call', { name: 'kadu_me_get', arguments: {} }, { id: 35 }), {
      'Mcp-Name': undefined,
    });
    expectRpcError(res, 400, -32020, 35);
  });

  it('tools/call with another Mcp-Name answers -32020', async () => {
    const res = await send(modernRequest('tools/call', { name: 'kadu_me_get', arguments: {} }, { id: 36 }), {
      'Mcp-Name': 'other',
    });
    expectRpcError(res, 400, -32020, 36);
  });

  it.each(['=?base64?a2FkdV9tZV9nZXQ?=', '=?base64?a2Fk!!dV9tZV9nZXQ=?=', '=?base64?/w==?='])(
    'a malformed base64 sentinel %s is a mismatch',
    async (value) => {
      const res = await send(modernRequest('tools/call', { name: 'kadu_me_get', arguments: {} }, { id: 37 }), {
        'Mcp-Name': value,
      });
      expectRpcError(res, 400, -32020, 37);
    },
  );

  it('a canonical base64 sentinel is decoded and compared (then the unknown tool answers in-band)', async () => {
    const name = 'ünïcode tool';
    const res = await send(modernRequest('tools/call', { name, arguments: {} }, { id: 38 }), {
      'Mcp-Name': `=?base64?${Buffer.from(name).toString('base64')}?=`,
    });
    expectRpcError(res, 200, -32602, 38);
  });

  it.each([
    ['resources/read', { uri: 'kobana://kadu/me' }],
    ['prompts/get', { name: 'kadu_run_task' }],
  ])('%s with a mismatching Mcp-Name answers -32020', async (method, params) => {
    const res = await send(modernRequest(method, params, { id: 39 }), { 'Mcp-Name': 'nope' });
    expectRpcError(res, 400, -32020, 39);
  });

  it('2025 requests are not held to the 2026 headers', async () => {
    const res = await send(legacyRequest('tools/call', { name: 'x', arguments: {} }, { id: 40 }), {
      'Mcp-Name': 'other',
    });
    expectRpcError(res, 200, -32602, 40);
  });
});

describe('rung 14: unknown methods', () => {
  // subscriptions/listen is served in 2026 (test/kadu/listen.e2e-spec.ts); in 2025 it is unknown.
  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'no/such'])(
    '2026: %s answers 404 -32601',
    async (method) => {
      const res = await send(modernRequest(method, {}, { id: 'u' }));
      expectRpcError(res, 404, -32601, 'u');
      expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
    },
  );

  it.each(['server/discover', 'subscriptions/listen', 'no/such'])(
    '2025: %s answers -32601 in a 200',
    async (method) => {
      const res = await send(legacyRequest(method, {}, { id: 9 }));
      expectRpcError(res, 200, -32601, 9);
    },
  );

  it.each([
    ['logging/setLevel', { level: 'info' }],
    ['resources/subscribe', { uri: 'kobana://kadu/tasks' }],
    ['resources/unsubscribe', { uri: 'kobana://kadu/tasks' }],
  ])(
    '2025: %s is acknowledged with exactly {} (Kadu sends no notification on a 2025 response)',
    async (method, params) => {
      const res = await send(legacyRequest(method, params, { id: 10 }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
    },
  );
});

describe.each([
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
] as const)('rung 15: handler errors answer -32602 in a 200 (%s)', (_era, build) => {
  it('unknown tool', async () => {
    const res = await send(build('tools/call', { name: 'no_such_tool', arguments: {} }, { id: 51 }));
    expectRpcError(res, 200, -32602, 51);
    expect(res.body.error.message).toBe('Unknown tool: no_such_tool');
  });

  it('resource not found carries data.uri', async () => {
    const uri = 'kobana://kadu/nothing-here';
    const res = await send(build('resources/read', { uri }, { id: 52 }));
    expectRpcError(res, 200, -32602, 52);
    expect(res.body.error.data).toEqual({ uri });
  });

  it('a forged cursor', async () => {
    const res = await send(build('tools/list', { cursor: 'bm9wZQ.AAAA' }, { id: 53 }));
    expectRpcError(res, 200, -32602, 53);
  });
});

describe('JSON-RPC ids are echoed exactly', () => {
  it.each([0, 42, -1, 1.5, 'abc', ''])('id %s', async (id) => {
    expectRpcResult(await send(modernRequest('tools/list', {}, { id })), id);
    expectRpcResult(await send(legacyRequest('ping', {}, { id })), id);
  });
});
