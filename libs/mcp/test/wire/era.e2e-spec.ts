import request from 'supertest';
import {
  expectRpcError,
  expectRpcResult,
  legacyInitialize,
  legacyRequest,
  modernRequest,
  type McpTestRequest,
} from '@kobana/nest-mcp/testing';
import { startWireApp, type WireApp } from '../fixtures/wire-app/start.js';
import { SERVED } from '../fixtures/wire-app/wire-app.module.js';

/** docs/ladder.md §1 and §2 rungs 11–15 (era, versions, headers, methods, handler errors) on the package's wire app. */
let w: WireApp;

beforeAll(async () => {
  w = await startWireApp();
});
afterAll(() => w.close());

const send = (r: McpTestRequest, headers: Record<string, string | undefined> = {}, token = 'reader-token') => {
  const req = request(w.url).post('/mcp').set('Authorization', `Bearer ${token}`);
  for (const [name, value] of Object.entries({ ...r.headers, ...headers }))
    if (value !== undefined) req.set(name, value);
  return req.send(r.body);
};

const META = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

describe('§1: versions', () => {
  it('server/discover lists the served revisions, newest first', async () => {
    const result = expectRpcResult(await send(modernRequest('server/discover', {}, { id: 1 })), 1);
    expect(result.supportedVersions).toEqual([...SERVED]);
  });

  it.each([
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    // Not served here, unknown, or modern: the newest served legacy revision.
    ['2025-11-25', '2025-06-18'],
    ['1999-01-01', '2025-06-18'],
    ['2026-07-28', '2025-06-18'],
  ])('initialize asking for %s gets %s', async (asked, got) => {
    const r = legacyInitialize(asked);
    const res = await send(r);
    expect(expectRpcResult(res, r.body.id!).protocolVersion).toBe(got);
    expect(res.headers['mcp-protocol-version']).toBe(got);
  });
});

describe('rung 11: era classification', () => {
  it('a request is 2026-era when _meta holds the protocolVersion key', async () => {
    const res = await send(modernRequest('tools/list', {}, { id: 'm1' }));
    expect(expectRpcResult(res, 'm1').resultType).toBe('complete');
    expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
  });

  it('a 2025 request carrying other _meta keys (progressToken) stays 2025', async () => {
    const res = await send(legacyRequest('tools/list', { _meta: { progressToken: 'p1' } }, { id: 'l1' }));
    expect(expectRpcResult(res, 'l1').resultType).toBeUndefined();
    expect(res.headers['mcp-protocol-version']).toBe('2025-06-18');
  });

  it('a 2025 request without the version header is taken as 2025-03-26', async () => {
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
    expectRpcResult(await send(modernRequest('server/discover', {}, { id: 12, clientInfo: null })), 12);
  });
});

describe('rungs 11b–11e: versions on the wire', () => {
  it('11b: header ≠ envelope version answers -32020, before the version gate', async () => {
    const r = modernRequest('server/discover', {}, { id: 21, protocolVersion: 'v999.0.0' });
    const res = await send(r, { 'MCP-Protocol-Version': '2026-07-28' });
    expect(expectRpcError(res, 400, -32020, 21).message).toMatch(/^Header mismatch: /);
  });

  it.each(['1999-01-01', '2025-11-25', '2025-06-18'])(
    '11c: envelope version %s is not served: -32022 with supported and requested',
    async (v) => {
      const res = await send(modernRequest('server/discover', {}, { id: 22, protocolVersion: v }));
      const error = expectRpcError(res, 400, -32022, 22);
      expect(error.message).toBe('Unsupported protocol version');
      expect(error.data).toEqual({ supported: [...SERVED], requested: v });
    },
  );

  it('11d: a 2026 header without the envelope answers -32602, never a silent fallback to 2025', async () => {
    const r = legacyRequest('tools/list', {}, { id: 23, protocolVersion: '2026-07-28' });
    expect(expectRpcError(await send(r, { 'Mcp-Method': 'tools/list' }), 400, -32602, 23).message).toMatch(/envelope/);
  });

  it.each(['2025-11-25', '1999-01-01'])('11e: a 2025 request with header %s (not served) answers -32022', async (v) => {
    const error = expectRpcError(
      await send(legacyRequest('tools/list', {}, { id: 24, protocolVersion: v })),
      400,
      -32022,
      24,
    );
    expect(error.data).toEqual({ supported: [...SERVED], requested: v });
  });
});

describe('rung 12: the 2026 headers must mirror the body', () => {
  const call = (name: string, args: Record<string, unknown>, id: number) =>
    modernRequest('tools/call', { name, arguments: args }, { id });

  it.each(['MCP-Protocol-Version', 'Mcp-Method'])('%s missing answers -32020', async (header) => {
    expectRpcError(await send(modernRequest('tools/list', {}, { id: 31 }), { [header]: undefined }), 400, -32020, 31);
  });

  it.each(['prompts/list', 'TOOLS/LIST', 'tools/list/'])(
    'Mcp-Method %s on a tools/list body answers -32020 naming it',
    async (value) => {
      const res = await send(modernRequest('tools/list', {}, { id: 33 }), { 'Mcp-Method': value });
      expect(expectRpcError(res, 400, -32020, 33).message).toContain(value);
    },
  );

  it('header names are case-insensitive and values are trimmed', async () => {
    const r = modernRequest('tools/list', {}, { id: 34 });
    const res = await request(w.url)
      .post('/mcp')
      .set('Authorization', 'Bearer reader-token')
      .set('content-type', 'application/json')
      .set('MCP-METHOD', '  tools/list  ')
      .set('mcp-protocol-version', ' 2026-07-28')
      .send(r.body);
    expectRpcResult(res, 34);
  });

  it.each([
    ['missing', undefined],
    ['another name', 'other'],
  ])('tools/call with Mcp-Name %s answers -32020 and nothing runs', async (_what, value) => {
    const res = await send(call('order_submit', { item: 'apples' }, 35), { 'Mcp-Name': value });
    expectRpcError(res, 400, -32020, 35);
    expect(w.service.submitted).toEqual([]);
  });

  it.each(['=?base64?c3RhdHVzX2dldA?=', '=?base64?c3Rh!!dHVzX2dldA==?=', '=?base64?/w==?='])(
    'a malformed base64 sentinel %s is a mismatch',
    async (value) => {
      expectRpcError(await send(call('status_get', {}, 37), { 'Mcp-Name': value }), 400, -32020, 37);
    },
  );

  it('a canonical base64 sentinel is decoded strictly and compared (then the unknown tool answers in-band)', async () => {
    const name = 'ünïcode tool';
    const res = await send(call(name, {}, 38), { 'Mcp-Name': `=?base64?${Buffer.from(name).toString('base64')}?=` });
    expectRpcError(res, 200, -32602, 38);
  });

  it.each([
    ['resources/read', { uri: 'wire://status' }],
    ['prompts/get', { name: 'greet' }],
  ])('%s with a mismatching Mcp-Name answers -32020', async (method, params) => {
    expectRpcError(await send(modernRequest(method, params, { id: 39 }), { 'Mcp-Name': 'nope' }), 400, -32020, 39);
  });

  it('Mcp-Param-Region must mirror the region argument: absent or different → -32020; equal → the call runs', async () => {
    expectRpcError(
      await send(call('region_echo', { region: 'eu-west' }, 41), { 'Mcp-Param-Region': 'us-east' }),
      400,
      -32020,
      41,
    );
    expectRpcError(await send(call('region_echo', { region: 'eu-west' }, 42)), 400, -32020, 42);
    const ok = expectRpcResult(
      await send(call('region_echo', { region: 'eu-west' }, 43), { 'Mcp-Param-Region': 'eu-west' }),
      43,
    );
    expect(ok.isError).toBeUndefined();
  });

  it('2025 requests are not held to the 2026 headers', async () => {
    const res = await send(legacyRequest('tools/call', { name: 'status_get', arguments: {} }, { id: 40 }), {
      'Mcp-Name': 'other',
    });
    expect(expectRpcResult(res, 40).isError).toBeUndefined();
  });
});

describe('rung 14: methods unknown, or not in this era', () => {
  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'subscriptions/listen', 'no/such'])(
    '2026: %s answers 404 -32601',
    async (method) => {
      const res = await send(modernRequest(method, {}, { id: 'u' }));
      expectRpcError(res, 404, -32601, 'u');
      expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
    },
  );

  it.each(['server/discover', 'logging/setLevel', 'resources/subscribe', 'subscriptions/listen', 'no/such'])(
    '2025: %s answers -32601 in a 200',
    async (method) => {
      expectRpcError(await send(legacyRequest(method, {}, { id: 9 })), 200, -32601, 9);
    },
  );
});

describe.each([
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
] as const)('rung 15: handler errors answer -32602 in a 200 (%s)', (_era, build) => {
  it('an unknown tool', async () => {
    const res = await send(build('tools/call', { name: 'no_such_tool', arguments: {} }, { id: 51 }));
    expect(expectRpcError(res, 200, -32602, 51).message).toBe('Unknown tool: no_such_tool');
  });

  it('an unknown prompt', async () => {
    expectRpcError(await send(build('prompts/get', { name: 'no_such_prompt' }, { id: 52 })), 200, -32602, 52);
  });

  it.each(['wire://nothing-here', 'wire://items/i2'])('resource %s not found carries data.uri', async (uri) => {
    const error = expectRpcError(await send(build('resources/read', { uri }, { id: 53 })), 200, -32602, 53);
    expect(error.data).toEqual({ uri });
  });

  it('a forged cursor', async () => {
    expectRpcError(await send(build('tools/list', { cursor: 'bm9wZQ.AAAA' }, { id: 54 })), 200, -32602, 54);
  });
});

describe('JSON-RPC ids are echoed exactly', () => {
  it.each([0, 42, -1, 1.5, 'abc', ''])('id %s', async (id) => {
    expectRpcResult(await send(modernRequest('tools/list', {}, { id })), id);
    expectRpcResult(await send(legacyRequest('ping', {}, { id })), id);
  });
});
