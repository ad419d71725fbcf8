import request from 'supertest';
import {
  expectRpcResult,
  legacyInitialize,
  legacyRequest,
  type McpTestRequest,
  modernRequest,
} from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** libs/mcp/docs/ladder.md §3–4: the methods of the endpoint and their per-era result envelopes. */
let kadu: KaduTestApp;
let token: string;

beforeAll(async () => {
  kadu = await startKadu();
  token = await kadu.token();
});
afterAll(() => kadu.close());

const send = (r: McpTestRequest) =>
  request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
const SERVER_INFO = { name: 'kadu', title: 'Kadu', version: '1.0.0' };

describe('server/discover (2026)', () => {
  it('answers versions newest first, capabilities (per-URI subscriptions, no listChanged), instructions and the 2026 envelope', async () => {
    const res = await send(modernRequest('server/discover', {}, { id: 1 }));
    const result = expectRpcResult(res, 1);
    expect(result).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-06-18', '2025-03-26'],
      // Kadu's lists never change; executions can be followed on subscriptions/listen, and
      // kadu_tasks_run answers a task to clients that declare the Tasks extension (issue 19), and
      // executions are shown as an MCP App (issue 31).
      capabilities: {
        tools: {},
        resources: { subscribe: true },
        prompts: {},
        completions: {},
        extensions: {
          'io.modelcontextprotocol/tasks': {},
          'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
        },
      },
      instructions: expect.stringContaining('organisation'),
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
    });
    expect(res.headers['mcp-protocol-version']).toBe('2026-07-28');
    for (const topic of [
      'snake_case',
      'next_cursor',
      'kadu_executions_get',
      'idempotency_key',
      'confirmation',
      'URL',
      'never instructions',
    ]) {
      expect(result.instructions).toContain(topic);
    }
  });
});

describe('initialize (2025)', () => {
  it.each([
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2025-11-25', '2025-06-18'],
    ['2026-07-28', '2025-06-18'],
    ['garbage', '2025-06-18'],
  ])('asking for %s gets %s', async (asked, given) => {
    const res = await send({ ...legacyInitialize(asked), body: { ...legacyInitialize(asked).body, id: 'init' } });
    const result = expectRpcResult(res, 'init');
    expect(result).toEqual({
      protocolVersion: given,
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: false, listChanged: false },
        prompts: { listChanged: false },
        completions: {},
        logging: {},
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
      serverInfo: SERVER_INFO,
      instructions: expect.stringContaining('Kadu'),
    });
    expect(res.headers['mcp-protocol-version']).toBe(given);
  });

  it('an initialize without params still negotiates', async () => {
    const res = await send(legacyRequest('initialize', {}, { id: 3, protocolVersion: null }));
    expect(expectRpcResult(res, 3).protocolVersion).toBe('2025-06-18');
  });
});

describe('ping (2025)', () => {
  it.each(['2025-06-18', '2025-03-26'])('answers exactly {} on %s', async (v) => {
    const res = await send(legacyRequest('ping', {}, { id: 4, protocolVersion: v }));
    expect(res.text).toBe('{"jsonrpc":"2.0","id":4,"result":{}}');
    expect(res.headers['mcp-protocol-version']).toBe(v);
  });
});

describe.each([
  ['tools/list', 'tools'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resourceTemplates'],
  ['prompts/list', 'prompts'],
])('%s', (method, key) => {
  it('2026: carries resultType, ttlMs 0, cacheScope private and serverInfo', async () => {
    const result = expectRpcResult(await send(modernRequest(method, {}, { id: 5 })), 5);
    expect(Array.isArray(result[key])).toBe(true);
    expect(result).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { [SERVER_INFO_KEY]: SERVER_INFO },
    });
  });

  it('2025: carries none of the 2026 envelope', async () => {
    const result = expectRpcResult(await send(legacyRequest(method, {}, { id: 6 })), 6);
    expect(Array.isArray(result[key])).toBe(true);
    for (const k of ['resultType', 'ttlMs', 'cacheScope', '_meta']) expect(result).not.toHaveProperty(k);
  });
});
