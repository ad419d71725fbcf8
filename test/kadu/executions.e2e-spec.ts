import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { download, uploadFile } from '../support/files.js';
import { awaitingReconcile, createTask as task } from '../support/executions.js';

/** Executions run in the background: queue, worker, steps, cost, cap, plan, cancel, continue. */
let kadu: KaduTestApp;
let admin: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

describe('echo', () => {
  it('REST: run answers 202 with a queued execution that then succeeds, with steps and cost', async () => {
    const taskId = await task(admin, 'echo');
    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { amount: 42 } });
    expect(run.status).toBe(202);
    expect(run.body.data).toMatchObject({
      status: 'queued',
      task_id: taskId,
      input: { amount: 42 },
      cost: { spent: 0, cap: 50 },
    });
    const done = await admin.waitForExecution(run.body.data.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      output: { amount: 42 },
      cost: { spent: 1, cap: 50 },
      error: null,
    });
    const steps = await admin.rest('get', `/api/v1/executions/${done.id}/steps`);
    expect(steps.body.data).toEqual([
      expect.objectContaining({ seq: 1, kind: 'echo', summary: 'Echoed the input back' }),
    ]);
  });

  it.each(ERAS)('tools (%s): kadu_tasks_run is destructive and needs approval; reads work', async (era) => {
    const taskId = await task(admin, 'echo');
    const refused = await admin.tool(era, 'kadu_tasks_run', { task_id: taskId, input: {} });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toMatch(/^approval_(required|pending)$/);
    expect((await admin.rest('get', `/api/v1/executions?task_id=${taskId}`)).body.data).toEqual([]);

    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { n: 1 } });
    await admin.waitForExecution(run.body.data.id);
    const viaTool = await admin.tool(era, 'kadu_executions_get', { execution_id: run.body.data.id });
    expect(viaTool.body).toEqual((await admin.rest('get', `/api/v1/executions/${run.body.data.id}`)).body);
    const listed = await admin.tool(era, 'kadu_executions_list', { task_id: taskId, status: 'succeeded' });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([run.body.data.id]);
    const steps = await admin.tool(era, 'kadu_executions_steps_list', { execution_id: run.body.data.id });
    expect(steps.body.data).toHaveLength(1);
  });
});

describe('echo with files: from upload to output download', () => {
  it('echoes input files as output files', async () => {
    const fileId = await uploadFile(kadu, admin, 'note.txt', 'hello kadu', 'text/plain');
    const run = await admin.rest('post', `/api/v1/tasks/${await task(admin, 'echo')}/run`, {
      input: { a: 1 },
      input_file_ids: [fileId],
    });
    const done = await admin.waitForExecution(run.body.data.id);
    expect(done).toMatchObject({ status: 'succeeded', output: { a: 1 }, cost: { spent: 2 } });
    const url = (await admin.rest('post', `/api/v1/files/${done.output_file_ids[0]}/download_url`)).body.data.url;
    expect(await download(kadu, url)).toEqual({ status: 200, type: 'text/plain', text: 'hello kadu' });
  });
});

describe('csv_summary: from upload to output download', () => {
  it('totals the CSV, writes an output file and lets it be downloaded', async () => {
    const fileId = await uploadFile(
      kadu,
      admin,
      'sales.csv',
      'region,amount,units\nnorth,10.50,2\nsouth,4.25,1\neast,5,3\n',
    );
    const taskId = await task(admin, 'csv_summary', 100);
    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [fileId] });
    const done = await admin.waitForExecution(run.body.data.id);
    expect(done.status).toBe('succeeded');
    expect(done.output).toMatchObject({ rows: 3, totals: { amount: 19.75, units: 6 } });
    expect(done.cost.spent).toBe(4);
    expect(done.output_file_ids).toHaveLength(1);
    const outputId = done.output_file_ids[0];
    const meta = await admin.tool('2026', 'kadu_files_get', { file_id: outputId });
    expect(meta.body.data).toMatchObject({ purpose: 'output', status: 'ready', content_type: 'application/json' });
    const link = await admin.tool('2025', 'kadu_files_download', { file_id: outputId });
    // The URL points where the bytes are: this app's download route, or the bucket (distributed topology).
    const s3 = kadu.config.s3;
    expect(
      link.body.data.url.startsWith(
        s3 ? `${s3.endpoint}/${s3.bucket}/${s3.prefix}files/` : 'http://localhost:3000/api/v1/downloads/',
      ),
    ).toBe(true);
    const bytes = await download(kadu, link.body.data.url);
    expect(bytes).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse(bytes.text)).toMatchObject({ rows: 3, totals: { amount: 19.75 } });
  });

  it('stops failed with cost_cap_reached when the rows cost more than the cap', async () => {
    const fileId = await uploadFile(
      kadu,
      admin,
      'big.csv',
      `n\n${Array.from({ length: 20 }, (_, i) => i).join('\n')}\n`,
    );
    const taskId = await task(admin, 'csv_summary', 5);
    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [fileId] });
    const done = await admin.waitForExecution(run.body.data.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'cost_cap_reached' }, cost: { spent: 5, cap: 5 } });
    const steps = (await admin.rest('get', `/api/v1/executions/${done.id}/steps?limit=100`)).body.data;
    expect(steps[steps.length - 1].kind).toBe('cost_cap');
  });

  it('refuses an input file that is not ready', async () => {
    const created = await admin.rest('post', '/api/v1/files', {
      name: 'x.csv',
      content_type: 'text/csv',
      size: 3,
      sha256: 'a'.repeat(64),
    });
    const taskId = await task(admin, 'csv_summary');
    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, {
      input_file_ids: [created.body.data.file.id],
    });
    expect(run.status).toBe(422);
    expect(run.body.errors[0].code).toBe('file_not_ready');
  });
});

describe('reconcile: awaiting_input → continue → succeeded', () => {
  it('asks which ledger entry an ambiguous bank line matches, then finishes with the decision', async () => {
    const waiting = await awaitingReconcile(admin, (name, content) => uploadFile(kadu, admin, name, content));
    const id = waiting.id as string;
    expect(waiting.question.choices).toEqual([expect.objectContaining({ bank_line: 1, candidates: ['L-1', 'L-2'] })]);

    const early = await admin.rest('post', `/api/v1/executions/${id}/continue`, { answers: {} });
    expect(early.status).toBe(202);
    await admin.waitForExecution(id, (e) => e.status === 'awaiting_input');

    const answered = await admin.rest('post', `/api/v1/executions/${id}/continue`, {
      answers: { decisions: { 1: 'L-2' } },
    });
    expect(answered.status).toBe(202);
    expect(answered.body.data.status).toBe('queued');
    const done = await admin.waitForExecution(id);
    expect(done.status).toBe('succeeded');
    const report = await download(
      kadu,
      (await admin.tool('2026', 'kadu_files_download', { file_id: done.output_file_ids[0] })).body.data.url,
    );
    expect(report.text).toBe('bank_line,ledger_id,amount\n1,L-2,-150\n2,L-3,-900\n');
    expect(done.output).toEqual({
      matched: [
        { bank_line: 1, ledger_id: 'L-2', amount: -150 },
        { bank_line: 2, ledger_id: 'L-3', amount: -900 },
      ],
      unmatched_bank_lines: [],
      unmatched_ledger_ids: ['L-1'],
    });
    const again = await admin.rest('post', `/api/v1/executions/${id}/continue`, { answers: {} });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('invalid_state');
  });

  it('cancel ends a waiting execution, and a finished one cannot be canceled', async () => {
    const bank = await uploadFile(kadu, admin, 'b.csv', 'date,description,amount\n2026-11-02,X,-1\n');
    const ledger = await uploadFile(
      kadu,
      admin,
      'l.csv',
      'id,date,description,amount\nA,2026-11-02,X,-1\nB,2026-11-02,X,-1\n',
    );
    const taskId = await task(admin, 'reconcile');
    const run = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [bank, ledger] });
    await admin.waitForExecution(run.body.data.id, (e) => e.status === 'awaiting_input');
    const canceled = await admin.rest('post', `/api/v1/executions/${run.body.data.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data.status).toBe('canceled');
    const echo = await admin.rest('post', `/api/v1/tasks/${await task(admin, 'echo')}/run`, {});
    await admin.waitForExecution(echo.body.data.id);
    expect((await admin.rest('post', `/api/v1/executions/${echo.body.data.id}/cancel`)).status).toBe(409);
  });
});

describe('plan and policy', () => {
  it('a run whose cap would exceed the monthly budget answers 402 plan_limit_exceeded', async () => {
    const org = admin.as({ org: 'thrifty' });
    const res = await org.rest('post', `/api/v1/tasks/${await task(org, 'echo', 5000)}/run`, {});
    expect(res.status).toBe(402);
    expect(res.body.errors[0].code).toBe('plan_limit_exceeded');
  });

  it('more runs than the plan allows at once answer 429 concurrency_limit with Retry-After', async () => {
    const slow = await startKadu({ KADU_STEP_DELAY_MS: '300' });
    try {
      const client = new KaduClient(slow);
      const taskId = await task(client, 'echo');
      expect((await client.rest('post', `/api/v1/tasks/${taskId}/run`, {})).status).toBe(202);
      expect((await client.rest('post', `/api/v1/tasks/${taskId}/run`, {})).status).toBe(202);
      const third = await client.rest('post', `/api/v1/tasks/${taskId}/run`, {});
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBe('5');
      expect(third.body.errors[0].code).toBe('concurrency_limit');

      // Cancel while running: the worker stops at its next step.
      const fileId = await uploadFile(
        slow,
        client,
        'rows.csv',
        `n\n${Array.from({ length: 30 }, (_, i) => i).join('\n')}\n`,
      );
      const csvTask = await task(client, 'csv_summary', 100);
      for (const e of (await client.rest('get', '/api/v1/executions')).body.data) await client.waitForExecution(e.id);
      const run = await client.rest('post', `/api/v1/tasks/${csvTask}/run`, { input_file_ids: [fileId] });
      await client.waitForExecution(run.body.data.id, (e) => e.status === 'running' && e.cost.spent >= 2);
      const cancel = await client.rest('post', `/api/v1/executions/${run.body.data.id}/cancel`);
      expect(cancel.status).toBe(200);
      const canceled = await client.waitForExecution(run.body.data.id);
      expect(canceled.status).toBe('canceled');
      expect(canceled.cost.spent).toBeLessThan(31);
    } finally {
      await slow.close();
    }
  });

  it('the launch policy decides who may run a task', async () => {
    const taskId = await task(admin, 'echo');
    expect(
      (await admin.rest('put', `/api/v1/tasks/${taskId}/launch_policy`, { roles: ['owner'], member_ids: [] })).status,
    ).toBe(200);
    const denied = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, {});
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('launch_not_allowed');
    expect(
      (await admin.as({ role: 'owner', user: 'olga@acme.test' }).rest('post', `/api/v1/tasks/${taskId}/run`, {}))
        .status,
    ).toBe(202);
  });

  it("a run's input must match the task's input_schema", async () => {
    const schema = {
      type: 'object',
      properties: { month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' } },
      required: ['month'],
    };
    const created = await admin.rest('post', '/api/v1/tasks', {
      name: 'typed',
      kind: 'echo',
      cost_cap: 5,
      input_schema: schema,
    });
    expect(created.status).toBe(201);
    const bad = await admin.rest('post', `/api/v1/tasks/${created.body.data.id}/run`, { input: { month: 'May' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ code: 'input_invalid', param: 'input.month' });
    expect(
      (await admin.rest('post', `/api/v1/tasks/${created.body.data.id}/run`, { input: { month: '2026-11' } })).status,
    ).toBe(202);
    const invalidSchema = await admin.rest('post', '/api/v1/tasks', {
      name: 'x',
      kind: 'echo',
      cost_cap: 5,
      input_schema: { type: 'nonsense' },
    });
    expect(invalidSchema.status).toBe(422);
  });

  it('a viewer cannot run tasks', async () => {
    const viewer = admin.as({ role: 'viewer', user: 'vic@acme.test' });
    const res = await viewer.rest('post', `/api/v1/tasks/${await task(admin, 'echo')}/run`, {});
    expect(res.status).toBe(403);
  });

  it('idempotent runs: the same key queues one execution', async () => {
    const taskId = await task(admin, 'echo');
    const key = { 'X-Idempotency-Key': `run-${taskId}` };
    const a = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { x: 1 } }, key);
    const b = await admin.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { x: 1 } }, key);
    expect(b.status).toBe(202);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect((await admin.rest('get', `/api/v1/executions?task_id=${taskId}`)).body.data).toHaveLength(1);
  });
});
