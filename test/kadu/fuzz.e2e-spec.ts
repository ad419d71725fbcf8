import fc from 'fast-check';
import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, type Era, KaduClient } from '../support/kadu-client.js';
import { checkProperty } from '../support/properties.js';
import {
  assertNoServerFault,
  FUZZ_SCALE,
  hostileParamsFor,
  hostileParamValue,
  hostileText,
  hostileValue,
} from '../support/hostile.js';

/**
 * Issue 13: property-based fuzzing (fast-check, bounded runs so the suite stays fast) of the MCP
 * door and of every tool's arguments, plus the REST write routes. Whatever arrives, the answer is
 * a JSON-RPC error or a tool result (isError for bad input), never a 5xx, -32603 or internal_error.
 * On PostgreSQL (the distributed pass) this includes NUL bytes, which the database refuses.
 */
let kadu: KaduTestApp;
let owner: KaduClient;
let mcpToken: string;
let taskId: string;
let tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[];

beforeAll(async () => {
  kadu = await startKadu();
  owner = new KaduClient(kadu, { role: 'owner' });
  mcpToken = await kadu.token({ role: 'owner' });
  taskId = (
    await owner.rest('post', '/api/v1/tasks', {
      name: 'Fuzz target',
      kind: 'echo',
      cost_cap: 2,
      input_schema: { properties: { k: { type: 'string', pattern: '^(a+)+$' } } },
    })
  ).body.data.id;
  tools = (await owner.listTools('2026')) as typeof tools;
});
afterAll(() => kadu.close());

// KADU_FUZZ_SCALE=10 runs ten times as many cases (exploration); the suite keeps the default.
const RUNS = { perTool: 12 * FUZZ_SCALE, door: 150 * FUZZ_SCALE, methods: 240 * FUZZ_SCALE, rest: 60 * FUZZ_SCALE };

type PropertySchema = { type?: string; enum?: unknown[] };

/** A value the tool would accept for this property, so that a hostile value elsewhere gets past validation. */
function plausible(name: string, schema: PropertySchema) {
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  if (name === 'task_id') return fc.constant(taskId);
  if (name.endsWith('_id')) return fc.uuid();
  if (schema.type === 'integer' || schema.type === 'number') return fc.integer({ min: 1, max: 20 });
  if (schema.type === 'boolean') return fc.boolean();
  if (schema.type === 'array') return fc.constant([]);
  if (schema.type === 'object') return fc.constant({});
  return fc.constantFrom('x', 'Fuzz', '2026-11', 'https://example.com/hook');
}

/**
 * Arguments for one tool: some of its own parameters, each plausible or hostile, and now and then
 * a stranger — so most calls get past validation to the service, where a hostile value can bite.
 */
function argumentsFor(tool: (typeof tools)[number]) {
  const properties = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>);
  const own = properties.map(([name, schema]) =>
    fc.option(
      fc.tuple(
        fc.constant(name),
        fc.oneof({ weight: 3, arbitrary: plausible(name, schema) }, { weight: 1, arbitrary: hostileValue }),
      ),
      { nil: undefined },
    ),
  );
  const stranger = fc.option(fc.tuple(hostileText, hostileValue), { nil: undefined, freq: 6 });
  return fc
    .tuple(fc.tuple(...own), stranger)
    .map(([pairs, extra]) =>
      Object.fromEntries([...pairs, extra].filter((p): p is [string, unknown] => p !== undefined)),
    );
}

const callTool = (era: Era, name: string, args: unknown) => {
  const r =
    era === '2026'
      ? modernRequest('tools/call', { name, arguments: args }, { id: 1 })
      : legacyRequest('tools/call', { name, arguments: args }, { id: 1 });
  return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${mcpToken}`).send(r.body);
};

describe.each(ERAS)('%s: every tool, hostile arguments', (era) => {
  it(
    'no answer is a 5xx or an internal error; refusals are JSON-RPC errors or isError results',
    async () => {
      expect(tools.length).toBeGreaterThan(30);
      for (const tool of tools) {
        await checkProperty(
          `${era} ${tool.name} arguments`,
          fc.asyncProperty(argumentsFor(tool), async (args) => {
            const res = await callTool(era, tool.name, args);
            assertNoServerFault(res, `${tool.name} ${JSON.stringify(args).slice(0, 200)}`);
          }),
          { numRuns: RUNS.perTool },
        );
      }
    },
    60_000 * FUZZ_SCALE,
  );
});

describe('the door', () => {
  const methods = fc.oneof(
    fc.constantFrom(
      'tools/call',
      'tools/list',
      'resources/read',
      'resources/list',
      'resources/templates/list',
      'prompts/get',
      'prompts/list',
      'completion/complete',
      'server/discover',
      'initialize',
      'ping',
    ),
    hostileText,
  );
  const message = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), hostileText),
      id: fc.oneof(fc.integer(), hostileText, fc.constant(null)),
      method: methods,
      params: fc.oneof(fc.dictionary(hostileText, hostileValue, { maxKeys: 5 }), hostileValue),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );

  it(
    'any JSON-RPC-shaped message, in either era, with or without matching headers, is answered without a fault',
    async () => {
      await checkProperty(
        'the door: JSON-RPC-shaped messages',
        fc.asyncProperty(message, fc.constantFrom<Era>('2026', '2025'), fc.boolean(), async (body, era, honest) => {
          const method = typeof body.method === 'string' ? body.method : 'x';
          // A method a client could not even put in the Mcp-Method header is sent with other headers.
          const honestHeaders = honest && /^[\x21-\x7e]+$/.test(method);
          const params =
            body.params && typeof body.params === 'object' && !Array.isArray(body.params)
              ? (body.params as Record<string, unknown>)
              : {};
          const r = era === '2026' ? modernRequest(method, params) : legacyRequest(method, params);
          const res = await request(kadu.server)
            .post('/mcp')
            .set(
              honestHeaders
                ? r.headers
                : {
                    'Content-Type': 'application/json',
                    'MCP-Protocol-Version': '2026-07-28',
                    'Mcp-Method': 'tools/call',
                  },
            )
            .set('Authorization', `Bearer ${mcpToken}`)
            .send(
              JSON.stringify(
                honestHeaders
                  ? { ...r.body, ...body, params: body.params === undefined ? r.body.params : body.params }
                  : body,
              ),
            );
          assertNoServerFault(res, JSON.stringify(body).slice(0, 200));
        }),
        { numRuns: RUNS.door },
      );
    },
    60_000 * FUZZ_SCALE,
  );

  it(
    'any bytes as a body are refused with a JSON-RPC error, never a fault',
    async () => {
      await checkProperty(
        'the door: any bytes',
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 200 }),
            fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
          ),
          async (text) => {
            const r = modernRequest('tools/list');
            const res = await request(kadu.server)
              .post('/mcp')
              .set(r.headers)
              .set('Authorization', `Bearer ${mcpToken}`)
              .send(text);
            assertNoServerFault(res, JSON.stringify(text).slice(0, 200));
          },
        ),
        { numRuns: RUNS.door },
      );
    },
    60_000 * FUZZ_SCALE,
  );
});

describe('every method, its own params (issue 34)', () => {
  /** The keys each method reads; the 2026 Mcp-Name header mirrors the `mirrored` one (rung 12). */
  const METHODS: Record<string, { keys: string[]; mirrored?: string; eras: readonly Era[] }> = {
    'tools/call': { keys: ['name', 'arguments', 'payload'], mirrored: 'name', eras: ERAS },
    'prompts/get': { keys: ['name', 'arguments'], mirrored: 'name', eras: ERAS },
    'resources/read': { keys: ['uri'], mirrored: 'uri', eras: ERAS },
    'tools/list': { keys: ['cursor'], eras: ERAS },
    'prompts/list': { keys: ['cursor'], eras: ERAS },
    'resources/list': { keys: ['cursor'], eras: ERAS },
    'resources/templates/list': { keys: ['cursor'], eras: ERAS },
    'completion/complete': { keys: ['ref', 'argument', 'context'], eras: ERAS },
    'tasks/get': { keys: ['taskId'], mirrored: 'taskId', eras: ERAS },
    'tasks/update': { keys: ['taskId', 'inputResponses'], mirrored: 'taskId', eras: ERAS },
    'tasks/cancel': { keys: ['taskId'], mirrored: 'taskId', eras: ERAS },
    'server/discover': { keys: ['capabilities'], eras: ERAS },
    initialize: { keys: ['protocolVersion', 'capabilities', 'clientInfo'], eras: ['2025'] },
    ping: { keys: [], eras: ERAS },
    'logging/setLevel': { keys: ['level'], eras: ['2025'] },
    'resources/subscribe': { keys: ['uri'], eras: ['2025'] },
  };
  /** Values shaped like the real ones, now and then, so that hostile siblings get past the first check. */
  const plausibleValue = fc.oneof(
    { weight: 4, arbitrary: hostileParamValue },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'kadu_tasks_list',
        'kobana://kadu/tasks',
        { type: 'ref/prompt', name: 'x' },
        { name: 'task_id', value: 'a' },
        {},
      ),
    },
  );
  const calls = fc.constantFrom(...Object.keys(METHODS)).chain((method) =>
    fc.record({
      method: fc.constant(method),
      era: fc.constantFrom(...METHODS[method]!.eras),
      params: hostileParamsFor(METHODS[method]!.keys.length ? METHODS[method]!.keys : ['x'], plausibleValue),
      header: fc.constantFrom('honest', 'other', 'none'),
    }),
  );

  it(
    'no method answers any params, in either era, with a 5xx or an internal error; a mirrored field that is not a string is -32020 (2026) or -32602 (2025)',
    async () => {
      await checkProperty(
        'every method, its own params',
        fc.asyncProperty(calls, async ({ method, era, params, header }) => {
          const r = era === '2026' ? modernRequest(method, params) : legacyRequest(method, params);
          const headers: Record<string, string> = { ...r.headers };
          if (header === 'other') headers['Mcp-Name'] = 'something-else';
          if (header === 'none') delete headers['Mcp-Name'];
          const res = await request(kadu.server)
            .post('/mcp')
            .set(headers)
            .set('Authorization', `Bearer ${mcpToken}`)
            .send(JSON.stringify(r.body));
          const label = `${era} ${method} ${header} ${JSON.stringify(params).slice(0, 200)}`;
          assertNoServerFault(res, label);
          const mirrored = METHODS[method]!.mirrored;
          if (!mirrored || res.status === 413 || res.status === 431 || !Object.hasOwn(params, mirrored)) return;
          if (typeof params[mirrored] === 'string') return;
          if (era === '2026') {
            expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(400);
            expect(res.body.error?.code, label).toBe(-32020);
          } else if (!method.startsWith('tasks/')) {
            expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(200);
            expect(res.body.error?.code, label).toBe(-32602);
          }
        }),
        { numRuns: RUNS.methods },
      );
    },
    60_000 * FUZZ_SCALE,
  );
});

describe('the REST write routes', () => {
  it(
    'hostile bodies on create, update, run and webhooks answer 4xx with the API envelope, never a 5xx',
    async () => {
      const routes: ['post' | 'patch', string][] = [
        ['post', '/api/v1/tasks'],
        ['patch', `/api/v1/tasks/${taskId}`],
        ['post', `/api/v1/tasks/${taskId}/run`],
        ['post', '/api/v1/webhooks'],
        ['post', '/api/v1/files'],
      ];
      const body = fc.dictionary(
        fc.oneof(
          fc.constantFrom(
            'name',
            'kind',
            'cost_cap',
            'description',
            'instructions',
            'input_schema',
            'input',
            'url',
            'events',
            'size',
            'sha256',
          ),
          hostileText,
        ),
        hostileValue,
        { maxKeys: 6 },
      );
      await checkProperty(
        'REST write routes',
        fc.asyncProperty(fc.constantFrom(...routes), body, async ([method, path], payload) => {
          const res = await owner.rest(method, path, payload);
          expect(
            res.status,
            `${method} ${path} ${JSON.stringify(payload).slice(0, 200)}: ${res.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (res.status >= 400) expect(res.body.errors?.length, res.text).toBeGreaterThan(0);
        }),
        { numRuns: RUNS.rest },
      );
    },
    60_000 * FUZZ_SCALE,
  );
});
