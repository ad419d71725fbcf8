import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { uploadFile } from '../support/files.js';
import { OrgTargets, type TargetKind } from '../support/org-targets.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Organisation isolation proved by effects, not only by answers: for every route and tool that
 * takes an id, a fresh target of the owner org is attacked from another org (404, exactly like a
 * missing id), the owner re-reads it and finds it unchanged, and then the owner's same request
 * succeeds — so the id was real and the request would have had an effect.
 */
let kadu: KaduTestApp;
let owner: KaduClient;
let other: KaduClient;
let targets: OrgTargets;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  kadu = await startKadu({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  owner = new KaduClient(kadu, { role: 'owner' });
  other = new KaduClient(kadu, { org: 'globex', user: 'gus@globex.test', role: 'owner' });
  targets = new OrgTargets(kadu, owner, receiver.url);
});
afterAll(async () => {
  await kadu.close();
  await receiver.stop();
});

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
/** kind, method, path, body, the owner's status for the same request. */
const REST: [TargetKind, Method, string, object | undefined, number][] = [
  ['task', 'get', '/api/v1/tasks/:id', undefined, 200],
  ['task', 'patch', '/api/v1/tasks/:id', { name: 'renamed' }, 200],
  ['task', 'delete', '/api/v1/tasks/:id', undefined, 200],
  ['task', 'post', '/api/v1/tasks/:id/run', { input: { n: 1 } }, 202],
  ['task', 'put', '/api/v1/tasks/:id/launch_policy', { roles: ['owner'], member_ids: [] }, 200],
  ['task', 'put', '/api/v1/tasks/:id/destinations', { destinations: [] }, 200],
  ['execution', 'get', '/api/v1/executions/:id', undefined, 200],
  ['execution', 'get', '/api/v1/executions/:id/steps', undefined, 200],
  ['execution', 'post', '/api/v1/executions/:id/continue', { answers: { ledger: 'L-1' } }, 202],
  ['execution', 'post', '/api/v1/executions/:id/cancel', {}, 200],
  ['file', 'get', '/api/v1/files/:id', undefined, 200],
  ['file', 'post', '/api/v1/files/:id/download_url', {}, 200],
  ['file', 'delete', '/api/v1/files/:id', undefined, 200],
  ['upload', 'post', '/api/v1/files/:id/confirm', {}, 200],
  ['webhook', 'get', '/api/v1/webhooks/:id', undefined, 200],
  ['webhook', 'patch', '/api/v1/webhooks/:id', { active: false }, 200],
  ['webhook', 'delete', '/api/v1/webhooks/:id', undefined, 200],
  ['webhook', 'post', '/api/v1/webhooks/:id/rotate_secret', {}, 200],
  ['delivery', 'get', '/api/v1/webhook_deliveries/:id', undefined, 200],
  ['delivery', 'post', '/api/v1/webhook_deliveries/:id/replay', {}, 202],
  ['secret', 'get', '/api/v1/secrets/:id', undefined, 200],
  ['secret', 'post', '/api/v1/secrets/:id/rotate', {}, 200],
  ['secret', 'delete', '/api/v1/secrets/:id', undefined, 200],
  ['member', 'patch', '/api/v1/members/:id', { role: 'operator' }, 200],
  ['member', 'delete', '/api/v1/members/:id', undefined, 200],
];

describe('REST', () => {
  it.each(REST)(
    "another org's %s: %s %s is not found, changes nothing, and works for the owner",
    async (kind, method, path, body, ownerStatus) => {
      const id = await targets.make(kind);
      const url = path.replace(':id', id);
      const before = await targets.snapshot(kind, id);
      const res = await other.rest(method, url, body);
      expect(res.status, res.text).toBe(404);
      expect(res.body.errors[0].code).toBe('not_found');
      expect(await targets.snapshot(kind, id)).toEqual(before);
      const own = await owner.rest(method, url, body);
      expect(own.status, own.text).toBe(ownerStatus);
    },
  );

  it('lists show nothing of the other org', async () => {
    const task = await targets.make('task');
    await targets.make('delivery');
    await targets.make('secret');
    await targets.make('file');
    await targets.make('execution');
    for (const path of [
      '/api/v1/tasks',
      '/api/v1/executions',
      '/api/v1/files',
      '/api/v1/webhooks',
      '/api/v1/webhook_deliveries',
      '/api/v1/secrets',
    ]) {
      expect((await owner.rest('get', path)).body.data.length, path).toBeGreaterThan(0);
      expect((await other.rest('get', path)).body.data, path).toEqual([]);
    }
    expect((await other.rest('get', '/api/v1/members')).body.data.map((m: { email: string }) => m.email)).toEqual([
      'gus@globex.test',
    ]);
    expect((await other.rest('get', `/api/v1/executions?task_id=${task}`)).body.data).toEqual([]);
  });
});

describe('foreign ids inside bodies', () => {
  let ownTask: string;
  beforeEach(async () => {
    ownTask = (await other.rest('post', '/api/v1/tasks', { name: 'globex task', kind: 'echo', cost_cap: 5 })).body.data
      .id;
  });
  const taskOf = async () => (await other.rest('get', `/api/v1/tasks/${ownTask}`)).body.data;
  const runsOf = async () => (await other.rest('get', `/api/v1/executions?task_id=${ownTask}`)).body.data;

  it("a run with another org's input file is refused and queues nothing; with its own file it runs", async () => {
    const foreign = await targets.make('file');
    const res = await other.rest('post', `/api/v1/tasks/${ownTask}/run`, { input: {}, input_file_ids: [foreign] });
    expect(res.status, res.text).toBe(404);
    expect(res.body.errors[0]).toMatchObject({ code: 'not_found', detail: `No such file: ${foreign}` });
    expect(await runsOf()).toEqual([]);
    const own = await uploadFile(kadu, other, 'own.csv', 'a\n1\n');
    expect(
      (await other.rest('post', `/api/v1/tasks/${ownTask}/run`, { input: {}, input_file_ids: [own] })).status,
    ).toBe(202);
  });

  it("destinations naming another org's webhook are refused and leave the task as it was; its own webhook is accepted", async () => {
    const foreign = await targets.make('webhook');
    const before = await taskOf();
    const res = await other.rest('put', `/api/v1/tasks/${ownTask}/destinations`, {
      destinations: [{ type: 'webhook', webhook_id: foreign }],
    });
    expect(res.status, res.text).toBe(404);
    expect(res.body.errors[0].code).toBe('not_found');
    expect(await taskOf()).toEqual(before);
    const own = (await other.rest('post', '/api/v1/webhooks', { url: receiver.url })).body.data.id;
    const ok = await other.rest('put', `/api/v1/tasks/${ownTask}/destinations`, {
      destinations: [{ type: 'webhook', webhook_id: own }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.destinations).toEqual([{ type: 'webhook', webhook_id: own }]);
  });

  it("a launch policy naming another org's member is refused and leaves the task as it was; its own member is accepted", async () => {
    const foreign = await targets.make('member');
    const before = await taskOf();
    const res = await other.rest('put', `/api/v1/tasks/${ownTask}/launch_policy`, { roles: [], member_ids: [foreign] });
    expect(res.status, res.text).toBe(404);
    expect(res.body.errors[0].code).toBe('not_found');
    expect(await taskOf()).toEqual(before);
    const own = (await other.rest('get', '/api/v1/me')).body.data.member.id;
    const ok = await other.rest('put', `/api/v1/tasks/${ownTask}/launch_policy`, { roles: [], member_ids: [own] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.launch_policy).toEqual({ roles: [], member_ids: [own] });
  });

  it.each(ERAS)('the same through the tools (%s)', async (era) => {
    const [file, hook, member] = [
      await targets.make('file'),
      await targets.make('webhook'),
      await targets.make('member'),
    ];
    const before = await taskOf();
    for (const [name, args] of [
      ['kadu_tasks_run', { task_id: ownTask, input: {}, input_file_ids: [file] }],
      ['kadu_tasks_set_destinations', { task_id: ownTask, destinations: [{ type: 'webhook', webhook_id: hook }] }],
      ['kadu_tasks_set_launch_policy', { task_id: ownTask, roles: [], member_ids: [member] }],
    ] as const) {
      const res = await other.confirmedTool(era, name, args);
      expect(res.isError, name).toBe(true);
      expect(res.body, name).toEqual({ status: 404, errors: [expect.objectContaining({ code: 'not_found' })] });
    }
    expect(await taskOf()).toEqual(before);
    expect(await runsOf()).toEqual([]);
  });
});

/** kind, tool, id argument, other arguments. Destructive tools are confirmed as a person would. */
const TOOLS: [TargetKind, string, string, Record<string, unknown>][] = [
  ['task', 'kadu_tasks_get', 'task_id', {}],
  ['task', 'kadu_tasks_update', 'task_id', { name: 'renamed' }],
  ['task', 'kadu_tasks_set_launch_policy', 'task_id', { roles: ['owner'], member_ids: [] }],
  ['task', 'kadu_tasks_set_destinations', 'task_id', { destinations: [] }],
  ['task', 'kadu_tasks_delete', 'task_id', {}],
  ['task', 'kadu_tasks_run', 'task_id', { input: {} }],
  ['execution', 'kadu_executions_get', 'execution_id', {}],
  ['execution', 'kadu_executions_steps_list', 'execution_id', {}],
  ['execution', 'kadu_executions_continue', 'execution_id', { answers: { ledger: 'L-1' } }],
  ['execution', 'kadu_executions_cancel', 'execution_id', {}],
  ['file', 'kadu_files_get', 'file_id', {}],
  ['file', 'kadu_files_download', 'file_id', {}],
  ['file', 'kadu_files_delete', 'file_id', {}],
  ['upload', 'kadu_files_confirm', 'file_id', {}],
  ['webhook', 'kadu_webhooks_get', 'webhook_id', {}],
  ['webhook', 'kadu_webhooks_update', 'webhook_id', { active: false }],
  ['webhook', 'kadu_webhooks_delete', 'webhook_id', {}],
  ['webhook', 'kadu_webhooks_rotate_secret', 'webhook_id', {}],
  ['delivery', 'kadu_webhook_deliveries_get', 'delivery_id', {}],
  ['delivery', 'kadu_webhook_deliveries_replay', 'delivery_id', {}],
  ['secret', 'kadu_secrets_get', 'secret_id', {}],
  ['secret', 'kadu_secrets_rotate', 'secret_id', {}],
  ['secret', 'kadu_secrets_delete', 'secret_id', {}],
  ['member', 'kadu_members_update_role', 'member_id', { role: 'operator' }],
  ['member', 'kadu_members_remove', 'member_id', {}],
];

describe.each(ERAS)('tools (%s)', (era) => {
  it.each(TOOLS)(
    "another org's %s through %s is not found, changes nothing, and works for the owner",
    async (kind, tool, arg, rest) => {
      const id = await targets.make(kind);
      const args = { [arg]: id, ...rest };
      const before = await targets.snapshot(kind, id);
      const res = await other.confirmedTool(era, tool, args);
      expect(res.isError).toBe(true);
      expect(res.body).toEqual({ status: 404, errors: [expect.objectContaining({ code: 'not_found' })] });
      expect(await targets.snapshot(kind, id)).toEqual(before);
      const own = await owner.confirmedTool(era, tool, args);
      expect(own.isError, JSON.stringify(own.body)).toBe(false);
    },
  );

  it('a malformed id is simply not found', async () => {
    const res = await other.tool(era, 'kadu_tasks_get', { task_id: '../../etc/passwd' });
    expect(res.body.errors[0].code).toBe('not_found');
  });
});

const TEMPLATES: [TargetKind, string][] = [
  ['task', 'kobana://kadu/tasks/:id'],
  ['execution', 'kobana://kadu/executions/:id'],
  ['execution', 'kobana://kadu/executions/:id/steps'],
  ['file', 'kobana://kadu/files/:id'],
  ['webhook', 'kobana://kadu/webhooks/:id'],
  ['delivery', 'kobana://kadu/webhook_deliveries/:id'],
];

describe.each(ERAS)('resource templates, prompts and completions (%s)', (era) => {
  it.each(TEMPLATES)("another org's %s at %s is a resource not found; the owner reads it", async (kind, template) => {
    const id = await targets.make(kind);
    const uri = template.replace(':id', id);
    const res = await other.mcp(era, 'resources/read', { uri });
    expect(res.status).toBe(200);
    // Exactly what a missing id answers: nothing of the target beyond the uri the caller sent.
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      error: { code: -32602, message: `Resource not found: ${uri}`, data: { uri } },
    });
    const own = await owner.mcp(era, 'resources/read', { uri });
    expect(own.body.result.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  });

  it.each([
    ['task', 'kadu_run_task', 'task_id'],
    ['execution', 'kadu_diagnose_execution', 'execution_id'],
    ['webhook', 'kadu_debug_webhook', 'webhook_id'],
  ] as const)("a prompt about another org's %s is refused; the owner gets it", async (kind, prompt, arg) => {
    const id = await targets.make(kind);
    const res = await other.mcp(era, 'prompts/get', { name: prompt, arguments: { [arg]: id } });
    expect(res.body.error?.code, res.text).toBe(-32602);
    const own = await owner.mcp(era, 'prompts/get', { name: prompt, arguments: { [arg]: id } });
    expect(JSON.stringify(own.body.result.messages)).toContain(id);
  });

  it("completions never offer another org's ids", async () => {
    const id = await targets.make('task');
    const ask = (who: KaduClient) =>
      who.mcp(era, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'kadu_run_task' },
        argument: { name: 'task_id', value: id.slice(0, 12) },
      });
    expect((await ask(owner)).body.result.completion.values).toContain(id);
    expect((await ask(other)).body.result.completion.values).not.toContain(id);
  });
});
