import request from 'supertest';
import { adaptResponseForLegacyClient } from '@kobana/nest-mcp/protocol/index.js';
import { legacyInitialize, legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { ResultSchemas, type Revision } from '../support/mcp-schemas.js';

/**
 * libs/mcp/docs/ladder.md §4: every method's result, in each revision Kadu speaks, validated against that
 * revision's official JSON Schema (test/schemas/mcp/) — closed at the top level, so a 2026 field
 * leaking to a 2025 client fails. The legacy adapter is then fed real 2026 results and its output
 * validated against both 2025 revisions.
 */
let kadu: KaduTestApp;
let token: string;
let taskId: string;

beforeAll(async () => {
  kadu = await startKadu();
  token = await kadu.token({ role: 'owner' });
  taskId = (
    await new KaduClient(kadu, { role: 'owner' }).rest('post', '/api/v1/tasks', {
      name: 'Schema task',
      kind: 'echo',
      cost_cap: 2,
    })
  ).body.data.id;
});
afterAll(() => kadu.close());

const send = async (r: McpTestRequest): Promise<Record<string, any>> => {
  const res = await request(kadu.server)
    .post('/mcp')
    .set(r.headers)
    .set('Authorization', `Bearer ${token}`)
    .send(r.body);
  expect(res.status, res.text).toBe(200);
  expect(res.body.error, res.text).toBeUndefined();
  return res.body.result;
};

/** method, the result's definition, params; the same for every revision. */
const COMMON: [string, string, () => Record<string, unknown>][] = [
  ['tools/list', 'ListToolsResult', () => ({})],
  ['tools/call', 'CallToolResult', () => ({ name: 'kadu_me_get', arguments: {} })],
  [
    'tools/call',
    'CallToolResult',
    () => ({ name: 'kadu_tasks_get', arguments: { task_id: '0190c0de-0000-7000-8000-000000000000' } }),
  ],
  ['tools/call', 'CallToolResult', () => ({ name: 'kadu_tasks_delete', arguments: { task_id: taskId } })],
  ['resources/list', 'ListResourcesResult', () => ({})],
  ['resources/templates/list', 'ListResourceTemplatesResult', () => ({})],
  ['resources/read', 'ReadResourceResult', () => ({ uri: 'kobana://kadu/me' })],
  ['resources/read', 'ReadResourceResult', () => ({ uri: `kobana://kadu/tasks/${taskId}` })],
  ['prompts/list', 'ListPromptsResult', () => ({})],
  ['prompts/get', 'GetPromptResult', () => ({ name: 'kadu_run_task', arguments: { task_id: taskId } })],
  [
    'completion/complete',
    'CompleteResult',
    () => ({
      ref: { type: 'ref/prompt', name: 'kadu_run_task' },
      argument: { name: 'task_id', value: taskId.slice(0, 8) },
    }),
  ],
];

const LEGACY: Revision[] = ['2025-06-18', '2025-03-26'];

describe.each(LEGACY)('%s results against the official %s schema', (revision) => {
  const schemas = new ResultSchemas(revision);
  const legacy = (method: string, params: Record<string, unknown>) =>
    legacyRequest(method, params, { id: 's', protocolVersion: revision });

  it('initialize → InitializeResult, negotiating this revision', async () => {
    const result = await send(legacyInitialize(revision));
    expect(result.protocolVersion).toBe(revision);
    expect(schemas.problems('InitializeResult', result)).toEqual([]);
  });

  it('ping → EmptyResult, exactly {}', async () => {
    const result = await send(legacy('ping', {}));
    expect(result).toEqual({});
    expect(schemas.problems('EmptyResult', result)).toEqual([]);
  });

  it.each(COMMON)('%s → %s', async (method, definition, params) => {
    const result = await send(legacy(method, params()));
    expect(schemas.problems(definition, result)).toEqual([]);
    // The reserved 2026 serverInfo key never reaches a 2025 client either (its _meta is open-ended).
    expect(
      (result._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'],
    ).toBeUndefined();
  });
});

describe('2026-07-28 results against the official 2026-07-28 schema', () => {
  const schemas = new ResultSchemas('2026-07-28');
  const modern = (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) =>
    modernRequest(method, params, { id: 's', capabilities });

  it('server/discover → DiscoverResult', async () => {
    expect(schemas.problems('DiscoverResult', await send(modern('server/discover', {})))).toEqual([]);
  });

  it.each(COMMON)('%s → %s', async (method, definition, params) => {
    const result = await send(modern(method, params()));
    expect(result.resultType).toBe('complete');
    expect(schemas.problems(definition, result)).toEqual([]);
  });

  it('a destructive call from a client with elicitation → InputRequiredResult, then the confirmed run → CallToolResult with a resource link', async () => {
    const form = { elicitation: {} };
    const args = { name: 'kadu_tasks_run', arguments: { task_id: taskId, input: {} } };
    const ask = await send(modern('tools/call', args, form));
    expect(ask.resultType).toBe('input_required');
    expect(schemas.problems('InputRequiredResult', ask)).toEqual([]);
    const ran = await send(
      modern(
        'tools/call',
        {
          ...args,
          requestState: ask.requestState,
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        },
        form,
      ),
    );
    expect(ran.content.map((c: { type: string }) => c.type)).toEqual(['text', 'resource_link']);
    expect(schemas.problems('CallToolResult', ran)).toEqual([]);
  });
});

describe("the legacy adapter's output against both 2025 schemas", () => {
  const modern = (method: string, params: Record<string, unknown>) => modernRequest(method, params, { id: 's' });

  it.each(LEGACY)(
    'real 2026 results, adapted, conform to %s (no resultType, ttlMs, cacheScope or serverInfo left)',
    async (revision) => {
      const schemas = new ResultSchemas(revision);
      for (const [method, definition, params] of COMMON) {
        const result = await send(modern(method, params()));
        expect(Object.keys(result)).toContain('resultType');
        const adapted = adaptResponseForLegacyClient(result, revision);
        expect(schemas.problems(definition, adapted), `${method} ${JSON.stringify(params())}`).toEqual([]);
        expect(adapted._meta?.['io.modelcontextprotocol/serverInfo' as never]).toBeUndefined();
      }
    },
  );
});
