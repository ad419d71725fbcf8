import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { MCP_STATE_STORE, type McpStateStore } from '@kobana/nest-mcp';
import { approvalPath } from '../support/approvals.js';
import { awaitingReconcile } from '../support/executions.js';
import { uploadFile } from '../support/files.js';
import { CHROMIUM_PATH, chromium as chromiumBinary, requires } from '../support/infrastructure.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/** Issue 6 in Kadu: every destructive tool goes through the person, in the chat or on the approval page. */
let kadu: KaduTestApp;
let admin: KaduClient;
let base: string;
const OUTPUT = join(process.cwd(), 'test-output');

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(kadu.server.address() as { port: number }).port}`;
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

async function newTask(name: string, costCap = 9): Promise<string> {
  return (await admin.rest('post', '/api/v1/tasks', { name, kind: 'echo', cost_cap: costCap })).body.data.id;
}
const runsOf = async (taskId: string) => (await admin.rest('get', `/api/v1/executions?task_id=${taskId}`)).body.data;

it('2026 with elicitation: the confirmation names the task and its cost cap; accept queues exactly one execution', async () => {
  const taskId = await newTask('Month-end close', 9);
  // A client that declares form elicitation in this request's envelope.
  const { modernRequest } = await import('@kobana/nest-mcp/testing');
  const request = (await import('supertest')).default;
  const token = await kadu.token();
  const send = async (params: Record<string, unknown>) => {
    const r = modernRequest('tools/call', params, { capabilities: { elicitation: {} } });
    return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
  };
  const args = { name: 'kadu_tasks_run', arguments: { task_id: taskId, input: { month: '2026-11' } } };
  const ask = (await send(args)).body.result;
  expect(ask.resultType).toBe('input_required');
  const { confirm } = ask.inputRequests;
  expect(confirm.params.message).toContain('“Month-end close”');
  expect(confirm.params.message).toContain('up to 9 cost units');
  expect(await runsOf(taskId)).toEqual([]);
  const retry = {
    ...args,
    requestState: ask.requestState,
    inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
  };
  const ran = (await send(retry)).body.result;
  expect(ran.isError).toBeUndefined();
  expect(JSON.parse(ran.content[0].text).data).toMatchObject({ status: 'queued', task_id: taskId });
  expect(ran.content[1]).toMatchObject({
    type: 'resource_link',
    uri: `kobana://kadu/executions/${JSON.parse(ran.content[0].text).data.id}`,
  });
  expect((await send(retry)).body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  expect(await runsOf(taskId)).toHaveLength(1);
});

it('the confirmation sentence of kadu_executions_continue never contains an argument the summary redacts: one redaction rule for both', async () => {
  const waiting = await awaitingReconcile(admin, (name, content) => uploadFile(kadu, admin, name, content));
  const secrets = ['hunter2-Pa55', 'ak_live_0042', 'cs_live_9931'];
  const answers = {
    decisions: { 1: 'L-2' },
    password: secrets[0],
    api_key: secrets[1],
    bank: { client_secret: secrets[2] },
  };
  const args = { execution_id: waiting.id, answers };

  // 2026 with a form: the question in the chat.
  const { modernRequest } = await import('@kobana/nest-mcp/testing');
  const request = (await import('supertest')).default;
  const token = await kadu.token();
  const r = modernRequest(
    'tools/call',
    { name: 'kadu_executions_continue', arguments: args },
    { capabilities: { elicitation: {} } },
  );
  const asked = (
    await request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body)
  ).body.result;
  const question = asked.inputRequests.confirm.params.message as string;
  expect(question).toContain(`Continue execution ${waiting.id}`);
  expect(question).toContain('"decisions":{"1":"L-2"}');
  expect(question).toContain('"password":"[redacted]"');

  // 2025: the approval page and the record it is stored as.
  const first = await admin.tool('2025', 'kadu_executions_continue', args);
  expect(first.body.error.code).toBe('approval_required');
  const page = await request(kadu.server).get(approvalPath(first.body.error.approval_url));
  expect(page.status).toBe(200);
  expect(page.text).toContain('&#34;client_secret&#34;:&#34;[redacted]&#34;');
  const store = kadu.app.get<McpStateStore>(MCP_STATE_STORE);
  const record = await store.get(`approval:${first.body.error.approval_id}`);
  expect(JSON.parse(record!).message).toContain('"api_key":"[redacted]"');
  for (const secret of secrets) {
    expect(question).not.toContain(secret);
    expect(first.body.error.message).not.toContain(secret);
    expect(page.text).not.toContain(secret);
    expect(record).not.toContain(secret);
  }
});

requires(chromiumBinary()).describe('the approval page in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(() => browser?.close());

  it('2025 client: open the link, see tool and client, click Continue, and the retry runs once', async () => {
    const taskId = await newTask('Reconcile November', 4);
    const first = await admin.tool('2025', 'kadu_tasks_run', { task_id: taskId, input: {} });
    expect(first.body.error.code).toBe('approval_required');
    const link = (first.body.error.approval_url as string).replace('http://localhost:3000', base);

    const page = await browser.newPage();
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    const body = await page.textContent('body');
    expect(body).toContain('Run a task');
    expect(body).toContain('an MCP client');
    expect(body).toContain('ana@acme.test');
    expect(body).toContain('Reconcile November');
    expect(await runsOf(taskId)).toEqual([]);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'approval-page.png'), fullPage: true });
    await page.click('button:has-text("Continue")');
    await page.waitForSelector('h1:has-text("Approved")');
    await page.screenshot({ path: join(OUTPUT, 'approval-approved.png') });
    await page.close();

    const ran = await admin.tool('2025', 'kadu_tasks_run', { task_id: taskId, input: {} });
    expect(ran.isError).toBe(false);
    expect(ran.body.data.status).toBe('queued');
    expect(await runsOf(taskId)).toHaveLength(1);
    const again = await admin.tool('2025', 'kadu_tasks_run', { task_id: taskId, input: {} });
    expect(again.body.error.code).toBe('approval_required');
    expect(await runsOf(taskId)).toHaveLength(1);
  });

  it('a retry while an approval is pending re-shows the same link: the page the person opened keeps working, and the call runs once', async () => {
    const taskId = await newTask('Retried while open', 4);
    const args = { task_id: taskId, input: {} };
    const first = await admin.tool('2025', 'kadu_tasks_run', args);
    expect(first.body.error.code).toBe('approval_required');
    const url = first.body.error.approval_url as string;

    const page = await browser.newPage();
    expect((await page.goto(url.replace('http://localhost:3000', base)))?.status()).toBe(200);
    // The model is impatient: it retries twice, in both eras, while the person reads the page.
    for (const era of ['2025', '2026'] as const) {
      const retry = await admin.tool(era, 'kadu_tasks_run', args);
      expect(retry.body.error).toMatchObject({
        code: 'approval_pending',
        approval_url: url,
        approval_id: first.body.error.approval_id,
        expires_at: first.body.error.expires_at,
      });
      expect(retry.body.error.message).toContain(url);
      expect(retry.body.error.message).not.toMatch(/no longer works/);
    }
    expect(await runsOf(taskId)).toEqual([]);
    await page.click('button:has-text("Continue")');
    await page.waitForSelector('h1:has-text("Approved")');
    expect(await page.innerText('main')).toContain('is approved, once');
    await page.close();

    const ran = await admin.tool('2025', 'kadu_tasks_run', args);
    expect(ran.isError).toBe(false);
    expect(ran.body.data.status).toBe('queued');
    expect((await admin.tool('2026', 'kadu_tasks_run', args)).body.error.code).toBe('approval_required');
    expect(await runsOf(taskId)).toHaveLength(1);
  });

  it('Cancel in the browser: nothing runs', async () => {
    const taskId = await newTask('Do not run', 4);
    const first = await admin.tool('2026', 'kadu_tasks_delete', { task_id: taskId });
    const page = await browser.newPage();
    await page.goto((first.body.error.approval_url as string).replace('http://localhost:3000', base));
    await page.click('button:has-text("Cancel")');
    await page.waitForSelector('h1:has-text("Canceled")');
    await page.close();
    expect((await admin.tool('2026', 'kadu_tasks_delete', { task_id: taskId })).body.error.code).toBe(
      'approval_rejected',
    );
    expect((await admin.rest('get', `/api/v1/tasks/${taskId}`)).status).toBe(200);
  });
});
