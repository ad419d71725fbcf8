import request from 'supertest';
import { expectRpcError, legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { approvalPath } from '../support/approvals.js';

/**
 * Issue 13: what an attacker sends gets a clear 4xx naming the parameter, at both doors and on
 * both databases (the distributed pass runs this on PostgreSQL, which refuses 0x00 in text) —
 * never a 500 or `internal_error`.
 */
let kadu: KaduTestApp;
let admin: KaduClient;
let taskId: string;

beforeAll(async () => {
  kadu = await startKadu();
  admin = new KaduClient(kadu);
  taskId = (await admin.rest('post', '/api/v1/tasks', { name: 'Target', kind: 'echo', cost_cap: 3 })).body.data.id;
});
afterAll(() => kadu.close());

const refused = (
  body: { status: number; errors: { code: string; param?: string; detail?: string }[] },
  param: string,
) => {
  expect(body.status).toBe(422);
  expect(body.errors).toContainEqual(expect.objectContaining({ code: 'validation_failed', param }));
};

describe('null on optional fields', () => {
  it.each(['name', 'description', 'instructions', 'cost_cap'])(
    'REST PATCH {"%s": null} is a 422 naming it; the task is unchanged',
    async (field) => {
      const res = await admin.rest('patch', `/api/v1/tasks/${taskId}`, { [field]: null });
      expect(res.status).toBe(422);
      refused(res.body, field);
      expect((await admin.rest('get', `/api/v1/tasks/${taskId}`)).body.data).toMatchObject({
        name: 'Target',
        cost_cap: 3,
      });
    },
  );

  it('input_schema: null is accepted and means no schema', async () => {
    const res = await admin.rest('patch', `/api/v1/tasks/${taskId}`, { input_schema: null });
    expect(res.status).toBe(200);
    expect(res.body.data.input_schema).toBeNull();
  });

  it.each(ERAS)(
    '%s: kadu_tasks_list {"cursor": null} and kadu_tasks_create {"idempotency_key": null} are 422s naming them',
    async (era) => {
      const list = await admin.tool(era, 'kadu_tasks_list', { cursor: null });
      expect(list.isError).toBe(true);
      refused(list.body, 'cursor');
      const create = await admin.tool(era, 'kadu_tasks_create', {
        name: 'n',
        kind: 'echo',
        cost_cap: 1,
        idempotency_key: null,
      });
      expect(create.isError).toBe(true);
      refused(create.body, 'idempotency_key');
      const limit = await admin.tool(era, 'kadu_executions_list', { limit: null, status: null, task_id: null });
      refused(limit.body, 'limit');
      refused(limit.body, 'status');
    },
  );
});

describe('NUL bytes and lone surrogates', () => {
  const BAD: [string, string, string][] = [
    ['NUL', 'a\u0000b', 'a NUL character'],
    ['a lone high surrogate', 'a\ud800b', 'an unpaired UTF-16 surrogate'],
    ['a lone low surrogate', '\udc00', 'an unpaired UTF-16 surrogate'],
  ];

  it.each(BAD)(
    'REST: %s in a field, deep in a free-form object, or in a key is a 422 naming where',
    async (_what, text, problem) => {
      const name = await admin.rest('post', '/api/v1/tasks', { name: text, kind: 'echo', cost_cap: 1 });
      expect(name.status).toBe(422);
      expect(name.body.errors).toEqual([
        {
          code: 'validation_failed',
          title: 'Validation failed',
          detail: `name must not contain ${problem}`,
          param: 'name',
        },
      ]);
      const deep = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, {
        input: { notes: ['ok', { memo: text }] },
      });
      expect(deep.status).toBe(422);
      expect(deep.body.errors[0]).toMatchObject({
        param: 'input.notes.1.memo',
        detail: `input.notes.1.memo must not contain ${problem}`,
      });
      const key = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { [`k${text}`]: 1 } });
      expect(key.status).toBe(422);
      const schema = await admin.rest('post', '/api/v1/tasks', {
        name: 'n',
        kind: 'echo',
        cost_cap: 1,
        input_schema: { properties: { a: { const: text } } },
      });
      expect(schema.status).toBe(422);
    },
  );

  it('REST: in a query string and a path', async () => {
    const query = await admin.rest('get', '/api/v1/executions?task_id=%00');
    expect(query.status).toBe(422);
    expect(query.body.errors[0]).toMatchObject({ code: 'validation_failed', param: 'task_id' });
    const path = await admin.rest('get', '/api/v1/tasks/%00');
    expect(path.status).toBe(422);
    expect(path.body.errors[0]).toMatchObject({ code: 'validation_failed', param: 'id' });
  });

  it.each(ERAS)('%s: the same refusals over MCP, as isError results with the API envelope', async (era) => {
    for (const [, text, problem] of BAD) {
      const create = await admin.tool(era, 'kadu_tasks_create', { name: text, kind: 'echo', cost_cap: 1 });
      expect(create.isError).toBe(true);
      expect(create.body.errors).toEqual([
        expect.objectContaining({ param: 'name', detail: `name must not contain ${problem}` }),
      ]);
      const get = await admin.tool(era, 'kadu_tasks_get', { task_id: text });
      refused(get.body, 'task_id');
      const run = await admin.tool(era, 'kadu_tasks_run', { task_id: taskId, input: { a: [text] } });
      expect(run.body.errors[0]).toMatchObject({ param: 'input.a.0' });
    }
    const tasks = (await admin.rest('get', '/api/v1/tasks?limit=100')).body.data;
    expect(tasks.map((t: { name: string }) => t.name)).toEqual(['Target']);
  });
});

describe('deep nesting', () => {
  const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('REST: a 5,000-level input_schema is a 400 with the API envelope, before parsing', async () => {
    const token = await kadu.token({ audience: 'api' });
    const res = await request(kadu.server)
      .post('/api/v1/tasks')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(`{"name":"n","kind":"echo","cost_cap":1,"input_schema":${deepJson(5_000)}}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 400,
      errors: [
        { code: 'nesting_too_deep', title: 'JSON nested too deeply', detail: 'The body nests deeper than 64 levels' },
      ],
    });
  });

  it.each(ERAS)('%s: a 5,000-level kadu_tasks_run input or task_id is a -32600 naming the limit', async (era) => {
    const token = await kadu.token();
    for (const args of [`{"task_id":"${taskId}","input":${deepJson(5_000)}}`, `{"task_id":${deepJson(5_000)}}`]) {
      const r =
        era === '2026'
          ? modernRequest('tools/call', { name: 'kadu_tasks_run', arguments: {} }, { id: 7 })
          : legacyRequest('tools/call', { name: 'kadu_tasks_run', arguments: {} }, { id: 7 });
      const text = JSON.stringify(r.body).replace('"arguments":{}', `"arguments":${args}`);
      const res = await request(kadu.server)
        .post('/mcp')
        .set(r.headers)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send(text);
      expectRpcError(res, 400, -32600, null);
      expect(res.body.error.data).toEqual({ max_depth: 64 });
    }
  });

  it('a task_id nested within the limit is a 422 naming it', async () => {
    const res = await admin.tool('2025', 'kadu_tasks_get', { task_id: { a: { b: { c: 1 } } } });
    refused(res.body, 'task_id');
  });
});

describe('webhook URLs that embed or tunnel to a private IPv4 address', () => {
  it.each([
    'http://[::127.0.0.1]/',
    'http://[2002:7f00:1::1]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  ])('%s is refused at creation on REST, and over MCP before any approval', async (url) => {
    const rest = await admin.rest('post', '/api/v1/webhooks', { url });
    expect(rest.status).toBe(422);
    expect(rest.body.errors[0]).toMatchObject({ code: 'url_not_allowed', param: 'url' });
    const mcp = await admin.tool('2025', 'kadu_webhooks_create', { url });
    expect(mcp.body.errors[0]).toMatchObject({ code: 'url_not_allowed', param: 'url' });
  });
});

describe('destructive tools check before they ask', () => {
  it.each(ERAS)('%s: a malformed, missing or foreign id answers not_found and makes no approval', async (era) => {
    const foreign = (
      await admin
        .as({ org: 'other', user: 'o@other.test' })
        .rest('post', '/api/v1/tasks', { name: 'Theirs', kind: 'echo', cost_cap: 1 })
    ).body.data.id;
    for (const id of ['not-a-uuid', '0190a000-0000-7000-8000-000000000000', foreign]) {
      const res = await admin.tool(era, 'kadu_tasks_delete', { task_id: id });
      expect(res.isError).toBe(true);
      expect(res.body).toEqual({
        status: 404,
        errors: [{ code: 'not_found', title: 'Not found', detail: 'No such task' }],
      });
    }
    // A valid call still asks first: proof the refusals above were not approvals in disguise.
    // (The other era's run of this test may have asked already: then the same approval and link.)
    const asked = (await admin.tool(era, 'kadu_tasks_delete', { task_id: taskId })).body.error;
    expect(asked.code).toMatch(/^approval_(required|pending)$/);
    expect(asked.approval_url).toMatch(/\/mcp\/approvals\//);
  });

  it('a run whose input the task schema refuses, or a 900 KB input, gets its 422 and no approval', async () => {
    const strict = (
      await admin.rest('post', '/api/v1/tasks', {
        name: 'Strict',
        kind: 'echo',
        cost_cap: 1,
        input_schema: { required: ['month'] },
      })
    ).body.data.id;
    const missing = await admin.tool('2025', 'kadu_tasks_run', { task_id: strict, input: {} });
    expect(missing.body.errors[0]).toMatchObject({
      code: 'input_invalid',
      detail: "input must have required property 'month'",
    });
    const huge = await admin.tool('2025', 'kadu_tasks_run', { task_id: strict, input: { month: 'x'.repeat(900_000) } });
    expect(huge.body.errors).toEqual([expect.objectContaining({ code: 'validation_failed', param: 'input' })]);
    await admin.rest('delete', `/api/v1/tasks/${strict}`);
  });

  it('asking again while pending gives the same working link (a page the person has open keeps working)', async () => {
    const first = (await admin.tool('2025', 'kadu_tasks_run', { task_id: taskId, input: { n: 1 } })).body.error;
    expect(first.code).toBe('approval_required');
    const again = (await admin.tool('2025', 'kadu_tasks_run', { task_id: taskId, input: { n: 1 } })).body.error;
    expect(again.code).toBe('approval_pending');
    expect(again.approval_url).toBe(first.approval_url);
    const page = await request(kadu.server).get(approvalPath(again.approval_url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('“Target”');
  });
});
