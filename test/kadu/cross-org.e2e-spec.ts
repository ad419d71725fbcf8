import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { uploadFile } from '../support/files.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Organisation isolation: another org's ids answer exactly like missing ids, through both doors. */
let kadu: KaduTestApp;
let acme: KaduClient;
let other: KaduClient;
const receiver = new WebhookReceiver();
const ids: Record<string, string> = {};

beforeAll(async () => {
  await receiver.start();
  kadu = await startKadu({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  acme = new KaduClient(kadu, { role: 'owner' });
  other = new KaduClient(kadu, { org: 'globex', user: 'gus@globex.test', role: 'owner' });
  const hook = (await acme.rest('post', '/api/v1/webhooks', { url: receiver.url })).body.data;
  ids.webhook = hook.id;
  const task = (await acme.rest('post', '/api/v1/tasks', { name: 'secret plan', kind: 'echo', cost_cap: 5 })).body.data;
  ids.task = task.id;
  await acme.rest('put', `/api/v1/tasks/${task.id}/destinations`, { destinations: [{ type: 'webhook', webhook_id: hook.id }] });
  const run = await acme.rest('post', `/api/v1/tasks/${task.id}/run`, {});
  ids.execution = run.body.data.id;
  await acme.waitForExecution(ids.execution);
  ids.file = await uploadFile(kadu, acme, 'private.csv', 'a\n1\n');
  await receiver.waitFor(1);
  for (let i = 0; i < 100 && !ids.delivery; i++) {
    ids.delivery = (await acme.rest('get', '/api/v1/webhook_deliveries')).body.data[0]?.id;
    if (!ids.delivery) await new Promise((r) => setTimeout(r, 20));
  }
  ids.secret = (await acme.rest('post', '/api/v1/secrets', { name: 'API_KEY' })).body.data.secret.id;
  ids.member = (await acme.rest('post', '/api/v1/members', { email: 'zed@acme.test', name: 'Zed', role: 'viewer' })).body.data.id;
});
afterAll(async () => {
  await kadu.close();
  await receiver.stop();
});

const REST: [string, string, string][] = [
  ['task', 'get', '/api/v1/tasks/:id'],
  ['task', 'patch', '/api/v1/tasks/:id'],
  ['task', 'delete', '/api/v1/tasks/:id'],
  ['task', 'post', '/api/v1/tasks/:id/run'],
  ['execution', 'get', '/api/v1/executions/:id'],
  ['execution', 'get', '/api/v1/executions/:id/steps'],
  ['execution', 'post', '/api/v1/executions/:id/cancel'],
  ['file', 'get', '/api/v1/files/:id'],
  ['file', 'post', '/api/v1/files/:id/download_url'],
  ['file', 'delete', '/api/v1/files/:id'],
  ['webhook', 'get', '/api/v1/webhooks/:id'],
  ['webhook', 'post', '/api/v1/webhooks/:id/rotate_secret'],
  ['delivery', 'get', '/api/v1/webhook_deliveries/:id'],
  ['delivery', 'post', '/api/v1/webhook_deliveries/:id/replay'],
  ['secret', 'get', '/api/v1/secrets/:id'],
  ['secret', 'delete', '/api/v1/secrets/:id'],
  ['member', 'patch', '/api/v1/members/:id'],
  ['member', 'delete', '/api/v1/members/:id'],
];

describe('REST', () => {
  it.each(REST)("another org's %s: %s %s answers 404 not_found", async (kind, method, path) => {
    const body = method === 'patch' && kind === 'member' ? { role: 'admin' } : method === 'patch' || method === 'post' ? {} : undefined;
    const res = await other.rest(method as 'get', path.replace(':id', ids[kind]!), body);
    expect(res.status, res.text).toBe(404);
    expect(res.body.errors[0].code).toBe('not_found');
  });

  it('lists show nothing of the other org', async () => {
    for (const path of ['/api/v1/tasks', '/api/v1/executions', '/api/v1/files', '/api/v1/webhooks', '/api/v1/webhook_deliveries', '/api/v1/secrets']) {
      expect((await other.rest('get', path)).body.data, path).toEqual([]);
    }
    expect((await other.rest('get', `/api/v1/executions?task_id=${ids.task}`)).body.data).toEqual([]);
  });

  it('nothing changed for the owner org', async () => {
    expect((await acme.rest('get', `/api/v1/tasks/${ids.task}`)).status).toBe(200);
    expect((await acme.rest('get', `/api/v1/files/${ids.file}`)).status).toBe(200);
  });
});

const TOOLS: [string, string, string][] = [
  ['task', 'kadu_tasks_get', 'task_id'],
  ['task', 'kadu_tasks_update', 'task_id'],
  ['execution', 'kadu_executions_get', 'execution_id'],
  ['execution', 'kadu_executions_steps_list', 'execution_id'],
  ['file', 'kadu_files_get', 'file_id'],
  ['file', 'kadu_files_confirm', 'file_id'],
  ['file', 'kadu_files_download', 'file_id'],
  ['webhook', 'kadu_webhooks_get', 'webhook_id'],
  ['delivery', 'kadu_webhook_deliveries_get', 'delivery_id'],
  ['secret', 'kadu_secrets_get', 'secret_id'],
];

describe.each(ERAS)('tools (%s)', (era) => {
  it.each(TOOLS)("another org's %s through %s is not found", async (kind, tool, arg) => {
    const res = await other.tool(era, tool, { [arg]: ids[kind] });
    expect(res.isError).toBe(true);
    expect(res.body).toEqual({ status: 404, errors: [expect.objectContaining({ code: 'not_found' })] });
  });

  it('a malformed id is simply not found', async () => {
    const res = await other.tool(era, 'kadu_tasks_get', { task_id: '../../etc/passwd' });
    expect(res.body.errors[0].code).toBe('not_found');
  });
});
