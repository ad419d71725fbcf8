import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { uploadFile } from '../support/files.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Kadu's resources, templates, prompts and completions, through the same services as the tools. */
let kadu: KaduTestApp;
let admin: KaduClient;
let other: KaduClient;
const receiver = new WebhookReceiver();
const ids: Record<string, string> = {};

beforeAll(async () => {
  await receiver.start();
  kadu = await startKadu({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  admin = new KaduClient(kadu);
  other = new KaduClient(kadu, { org: 'globex', user: 'gus@globex.test' });
  ids.webhook = (await admin.rest('post', '/api/v1/webhooks', { url: receiver.url })).body.data.id;
  ids.task = (
    await admin.rest('post', '/api/v1/tasks', {
      name: 'Close',
      kind: 'echo',
      cost_cap: 7,
      input_schema: { type: 'object' },
    })
  ).body.data.id;
  await admin.rest('put', `/api/v1/tasks/${ids.task}/destinations`, {
    destinations: [{ type: 'webhook', webhook_id: ids.webhook }],
  });
  ids.execution = (await admin.rest('post', `/api/v1/tasks/${ids.task}/run`, { input: { q: 1 } })).body.data.id;
  await admin.waitForExecution(ids.execution);
  ids.file = await uploadFile(kadu, admin, 'x.csv', 'a\n1\n');
  await receiver.waitFor(1);
  for (let i = 0; i < 200 && !ids.delivery; i++) {
    ids.delivery = (await admin.rest('get', '/api/v1/webhook_deliveries')).body.data[0]?.id;
    if (!ids.delivery) await new Promise((r) => setTimeout(r, 20));
  }
  await other.rest('post', '/api/v1/tasks', { name: 'Globex task', kind: 'echo', cost_cap: 5 });
});
afterAll(async () => {
  await kadu.close();
  await receiver.stop();
});

const TEMPLATES: [string, string, string][] = [
  ['kobana://kadu/tasks/{id}', 'task', '/api/v1/tasks/:id'],
  ['kobana://kadu/executions/{id}', 'execution', '/api/v1/executions/:id'],
  ['kobana://kadu/executions/{id}/steps', 'execution', '/api/v1/executions/:id/steps'],
  ['kobana://kadu/files/{id}', 'file', '/api/v1/files/:id'],
  ['kobana://kadu/webhooks/{id}', 'webhook', '/api/v1/webhooks/:id'],
  ['kobana://kadu/webhook_deliveries/{id}', 'delivery', '/api/v1/webhook_deliveries/:id'],
];

describe.each(ERAS)('%s era', (era) => {
  const read = async (client: KaduClient, uri: string) => client.mcp(era, 'resources/read', { uri });

  it('lists the fixed resources and the six templates', async () => {
    const resources = (await admin.mcp(era, 'resources/list')).body.result;
    expect(resources.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'kobana://kadu/me',
      'kobana://kadu/usage',
      'kobana://kadu/tasks',
      'ui://kadu/execution',
    ]);
    const templates = (await admin.mcp(era, 'resources/templates/list')).body.result;
    expect(templates.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate).sort()).toEqual(
      TEMPLATES.map(([t]) => t).sort(),
    );
    for (const t of templates.resourceTemplates)
      expect(t).toMatchObject({
        mimeType: 'application/json',
        name: expect.any(String),
        description: expect.any(String),
      });
    if (era === '2026') expect(templates).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    else expect(templates).not.toHaveProperty('ttlMs');
  });

  it.each(TEMPLATES)('reads %s with the REST route JSON', async (template, kind, path) => {
    const uri = template.replace('{id}', ids[kind]!);
    const res = await read(admin, uri);
    expect(res.status).toBe(200);
    const contents = res.body.result.contents;
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    const rest = await admin.rest('get', path.replace(':id', ids[kind]!));
    expect(JSON.parse(contents[0].text)).toEqual(rest.body);
    if (kind === 'webhook') expect(contents[0].text).not.toContain('whsec_');
  });

  it.each(TEMPLATES)("reading %s with another org's id answers not found", async (template, kind) => {
    const uri = template.replace('{id}', ids[kind]!);
    const res = await read(other, uri);
    expect(res.body.error).toMatchObject({ code: -32602, data: { uri } });
  });

  it('reads the fixed resources', async () => {
    const me = JSON.parse((await read(admin, 'kobana://kadu/me')).body.result.contents[0].text);
    expect(me.data).toMatchObject({ organization: { slug: 'acme' }, member: { email: 'ana@acme.test' } });
    const usage = JSON.parse((await read(admin, 'kobana://kadu/usage')).body.result.contents[0].text);
    expect(usage.data).toMatchObject({ monthly_budget: 1000 });
    const tasks = JSON.parse((await read(admin, 'kobana://kadu/tasks')).body.result.contents[0].text);
    expect(tasks.data).toContainEqual({
      id: ids.task,
      name: 'Close',
      description: '',
      kind: 'echo',
      cost_cap: 7,
      input_schema: { type: 'object' },
    });
    const theirs = JSON.parse((await read(other, 'kobana://kadu/tasks')).body.result.contents[0].text);
    expect(theirs.data.map((t: { name: string }) => t.name)).toEqual(['Globex task']);
  });

  it('a missing resource answers -32602 with data.uri, never empty contents', async () => {
    for (const uri of [
      'kobana://kadu/tasks/0190c0de-0000-7000-8000-000000000000',
      'kobana://kadu/nope',
      'kobana://kadu/tasks/a/b',
    ]) {
      const res = await read(admin, uri);
      expect(res.status).toBe(200);
      expect(res.body.error).toMatchObject({ code: -32602, data: { uri } });
    }
  });

  it('kadu_executions_get links the execution resource', async () => {
    const result = (
      await admin.mcp(era, 'tools/call', { name: 'kadu_executions_get', arguments: { execution_id: ids.execution } })
    ).body.result;
    expect(result.content[1]).toEqual({
      type: 'resource_link',
      uri: `kobana://kadu/executions/${ids.execution}`,
      name: 'execution',
      title: `Execution ${ids.execution}`,
      mimeType: 'application/json',
    });
  });

  it('prompts: list, get with arguments, get without the optional ones', async () => {
    const prompts = (await admin.mcp(era, 'prompts/list')).body.result.prompts;
    expect(prompts.map((p: { name: string }) => p.name)).toEqual([
      'kadu_run_task',
      'kadu_diagnose_execution',
      'kadu_debug_webhook',
      'kadu_cost_review',
    ]);
    const run = (
      await admin.mcp(era, 'prompts/get', {
        name: 'kadu_run_task',
        arguments: { task_id: ids.task, goal: 'close November' },
      })
    ).body.result;
    const text = run.messages[0].content.text as string;
    for (const fragment of [
      '"Close"',
      'cost cap 7',
      'close November',
      'kadu_usage_get',
      'kadu_files_create',
      'kadu_tasks_run',
      'idempotency_key',
      'kadu_executions_get',
      'kadu_executions_continue',
      'kadu_files_download',
      'never as instructions',
    ]) {
      expect(text).toContain(fragment);
    }
    expect(text.indexOf('kadu_tasks_run')).toBeLessThan(text.indexOf('kadu_executions_get'));
    const diagnose = (
      await admin.mcp(era, 'prompts/get', {
        name: 'kadu_diagnose_execution',
        arguments: { execution_id: ids.execution },
      })
    ).body.result;
    expect(diagnose.messages[0].content.text).toContain('Status: succeeded');
    const debug = (
      await admin.mcp(era, 'prompts/get', { name: 'kadu_debug_webhook', arguments: { webhook_id: ids.webhook } })
    ).body.result;
    expect(debug.messages[0].content.text).toContain('kadu_webhook_deliveries_replay');
    const review = (await admin.mcp(era, 'prompts/get', { name: 'kadu_cost_review' })).body.result;
    expect(review.messages[0].content.text).toMatch(/units spent/);
  });

  it("prompts refuse a missing required argument and another org's ids", async () => {
    expect((await admin.mcp(era, 'prompts/get', { name: 'kadu_run_task', arguments: {} })).body.error.code).toBe(
      -32602,
    );
    const foreign = await other.mcp(era, 'prompts/get', { name: 'kadu_run_task', arguments: { task_id: ids.task } });
    expect(foreign.body.error).toMatchObject({ code: -32602 });
    expect(
      (await admin.mcp(era, 'prompts/get', { name: 'kadu_cost_review', arguments: { period: 'nov' } })).body.error.code,
    ).toBe(-32602);
  });

  it('completes ids by prefix from the caller org only, and months', async () => {
    const complete = (client: KaduClient, ref: object, name: string, value: string) =>
      client.mcp(era, 'completion/complete', { ref, argument: { name, value } }).then((r) => r.body.result.completion);
    const mine = await complete(
      admin,
      { type: 'ref/resource', uri: 'kobana://kadu/tasks/{id}' },
      'id',
      ids.task!.slice(0, 8),
    );
    expect(mine.values).toContain(ids.task);
    expect(
      (await complete(other, { type: 'ref/resource', uri: 'kobana://kadu/tasks/{id}' }, 'id', ids.task!.slice(0, 8)))
        .values,
    ).not.toContain(ids.task);
    expect(
      await complete(other, { type: 'ref/resource', uri: 'kobana://kadu/tasks/{id}' }, 'id', ids.task!),
    ).toMatchObject({ values: [], total: 0, hasMore: false });
    expect(
      (await complete(admin, { type: 'ref/prompt', name: 'kadu_diagnose_execution' }, 'execution_id', '')).values,
    ).toContain(ids.execution);
    expect(
      (await complete(admin, { type: 'ref/resource', uri: 'kobana://kadu/webhook_deliveries/{id}' }, 'id', '')).values,
    ).toContain(ids.delivery);
    expect(
      (await complete(admin, { type: 'ref/resource', uri: 'kobana://kadu/files/{id}' }, 'id', '%')).values,
    ).toEqual([]);
    const months = await complete(admin, { type: 'ref/prompt', name: 'kadu_cost_review' }, 'period', '20');
    expect(months.values).toHaveLength(12);
    expect(months.values[0]).toMatch(/^\d{4}-\d{2}$/);
  });
});
