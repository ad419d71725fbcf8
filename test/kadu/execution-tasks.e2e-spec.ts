import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { eventually } from '../support/eventually.js';
import { uploadFile } from '../support/files.js';
import { createTask, TWO_AMBIGUITIES_BANK_CSV, TWO_AMBIGUITIES_LEDGER_CSV } from '../support/executions.js';

/**
 * Issue 19: Kadu's executions as MCP tasks (Tasks extension, SEP-2663) over real HTTP — the same
 * file runs embedded (PGlite, in-process queue) and in the distributed pass (PostgreSQL, Redis).
 */
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };

let kadu: KaduTestApp;
let admin: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

const newTask = (kind: string, costCap = 50) => createTask(admin, kind, costCap, `${kind} as a task`);
const runsOf = async (taskId: string) => (await admin.rest('get', `/api/v1/executions?task_id=${taskId}`)).body.data;

/** kadu_tasks_run as a client that declares the extension and confirms in the chat: the CreateTaskResult. */
async function runAsTask(client: KaduClient, args: Record<string, unknown>) {
  const ask = (await client.mcp('2026', 'tools/call', { name: 'kadu_tasks_run', arguments: args }, WITH_TASKS)).body
    .result;
  expect(ask.resultType).toBe('input_required');
  expect(ask.taskId).toBeUndefined();
  const res = await client.mcp(
    '2026',
    'tools/call',
    { name: 'kadu_tasks_run', arguments: args, requestState: ask.requestState, inputResponses: ACCEPT },
    WITH_TASKS,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.result;
}
const taskGet = (client: KaduClient, taskId: string) => client.mcp('2026', 'tasks/get', { taskId }, WITH_TASKS);
const untilStatus = (client: KaduClient, taskId: string, status: string) =>
  eventually(
    `task ${status}`,
    async () => (await taskGet(client, taskId)).body.result,
    (r) => r?.status === status,
  );

it('server/discover advertises the extension', async () => {
  const res = await admin.mcp('2026', 'server/discover');
  expect(res.body.result.capabilities.extensions).toEqual({
    [TASKS]: {},
    'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
  });
});

it('confirmation first, then a task whose tasks/get reflects the execution and ends with what kadu_executions_get shows', async () => {
  const taskId = await newTask('echo', 7);
  const created = await runAsTask(admin, { task_id: taskId, input: { amount: 3 } });
  expect(created).toMatchObject({ resultType: 'task', ttlMs: null });
  // The worker may have taken it already: the seed state is whatever the execution is now, polled at the pace of that state.
  const seed = { Queued: ['working', 2000], Running: ['working', 500], Succeeded: ['completed', undefined] }[
    String(created.statusMessage).split(';')[0]!
  ];
  expect(seed, created.statusMessage).toBeDefined();
  expect([created.status, created.pollIntervalMs]).toEqual(seed);
  expect(created.statusMessage).toMatch(
    /^(Queued; 0 steps so far, 0|Running; [01] steps? so far, [01]|Succeeded after 1 step; 1) of 7 cost units spent\.( Last step: .+\.)?$/,
  );
  for (const key of ['result', 'error', 'inputRequests', 'requestState', 'cacheScope'])
    expect(created).not.toHaveProperty(key);
  const [execution] = await runsOf(taskId);
  expect(execution.status).toMatch(/queued|running|succeeded/);

  // Durable before the answer: the very next tasks/get resolves it.
  const first = await taskGet(admin, created.taskId);
  expect(first.status).toBe(200);
  expect(first.body.result).toMatchObject({ resultType: 'complete', taskId: created.taskId, ttlMs: null });

  const done = await untilStatus(admin, created.taskId, 'completed');
  expect(done.statusMessage).toBe('Succeeded after 1 step; 1 of 7 cost units spent.');
  const shown = await admin.tool('2026', 'kadu_executions_get', { execution_id: execution.id });
  expect(JSON.parse(done.result.content[0].text)).toEqual(shown.body);
  // The same object as structuredContent, as kadu_executions_get answers it (issue 31).
  expect(done.result.structuredContent).toEqual(shown.result.structuredContent);
  expect(done.result.content[1]).toEqual({
    type: 'resource_link',
    uri: `kobana://kadu/executions/${execution.id}`,
    name: 'execution',
    title: `Execution ${execution.id}`,
    mimeType: 'application/json',
  });
  expect(done.result.isError).toBeUndefined();
  // Exactly one execution, the one the task id maps to.
  expect((await runsOf(taskId)).map((e: { id: string }) => e.id)).toEqual([execution.id]);
});

it('a client that does not declare the extension sees no change: a synchronous result, and tasks/* refused with -32021', async () => {
  const taskId = await newTask('echo');
  const ran = await admin.confirmedTool('2026', 'kadu_tasks_run', { task_id: taskId, input: {} });
  expect(ran.result.resultType).toBe('complete');
  expect(ran.result.taskId).toBeUndefined();
  expect(ran.body.data).toMatchObject({ status: 'queued', task_id: taskId });

  const created = await runAsTask(admin, { task_id: taskId, input: {} });
  const refused = await admin.mcp('2026', 'tasks/get', { taskId: created.taskId }, { elicitation: {} });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({
    code: -32021,
    data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
  });
  // 2025 clients never see the methods.
  expect((await admin.mcp('2025', 'tasks/get', { taskId: created.taskId })).body.error.code).toBe(-32601);
});

it('a refused run answers at once and makes no task', async () => {
  const res = await admin.mcp(
    '2026',
    'tools/call',
    { name: 'kadu_tasks_run', arguments: { task_id: 'tsk_doesnotexist00000000', input: {} } },
    WITH_TASKS,
  );
  expect(res.body.result.resultType).toBe('complete');
  expect(res.body.result.isError).toBe(true);
  expect(res.body.result.taskId).toBeUndefined();
});

describe('reconcile: input_required → tasks/update → completed', () => {
  async function ambiguousRun() {
    const bank = await uploadFile(kadu, admin, 'bank.csv', TWO_AMBIGUITIES_BANK_CSV);
    const ledger = await uploadFile(kadu, admin, 'ledger.csv', TWO_AMBIGUITIES_LEDGER_CSV);
    const taskId = await newTask('reconcile');
    const created = await runAsTask(admin, { task_id: taskId, input_file_ids: [bank, ledger] });
    return { created, taskId, waiting: await untilStatus(admin, created.taskId, 'input_required') };
  }

  it('asks one form per ambiguous line, keeps the task waiting until every line is answered, then finishes with the decisions', async () => {
    const { created, waiting } = await ambiguousRun();
    expect(waiting.pollIntervalMs).toBe(5000);
    expect(waiting.statusMessage).toMatch(/^Waiting for your answer; \d+ steps, \d+ of 50 cost units spent\./);
    const keys = Object.keys(waiting.inputRequests);
    expect(keys).toEqual(['r1-line-1', 'r1-line-2']);
    expect(waiting.inputRequests['r1-line-1']).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Bank line 1 (2026-11-02, ACME, -150) matches several ledger entries: L-1, L-2. Which one is it?',
        requestedSchema: {
          type: 'object',
          properties: {
            ledger_id: {
              type: 'string',
              title: 'Ledger entry',
              enum: ['L-1', 'L-2', 'none'],
              description: '"none" leaves the line unmatched',
            },
          },
          required: ['ledger_id'],
        },
      },
    });

    // One line answered, plus an unknown key and an invalid answer: only the valid one counts.
    const partial = await admin.mcp(
      '2026',
      'tasks/update',
      {
        taskId: created.taskId,
        inputResponses: {
          'r1-line-1': { action: 'accept', content: { ledger_id: 'L-2' } },
          'r1-line-2': { action: 'accept', content: { ledger_id: 'L-9' } },
          'no-such-key': { action: 'accept' },
        },
      },
      WITH_TASKS,
    );
    expect(partial.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const still = (await taskGet(admin, created.taskId)).body.result;
    expect(still.status).toBe('input_required');
    expect(Object.keys(still.inputRequests)).toEqual(['r1-line-2']);
    // Answering an already satisfied key again changes nothing.
    await admin.mcp(
      '2026',
      'tasks/update',
      { taskId: created.taskId, inputResponses: { 'r1-line-1': { action: 'accept', content: { ledger_id: 'L-1' } } } },
      WITH_TASKS,
    );

    await admin.mcp(
      '2026',
      'tasks/update',
      { taskId: created.taskId, inputResponses: { 'r1-line-2': { action: 'accept', content: { ledger_id: 'L-5' } } } },
      WITH_TASKS,
    );
    const done = await untilStatus(admin, created.taskId, 'completed');
    const view = JSON.parse(done.result.content[0].text).data;
    expect(view.status).toBe('succeeded');
    expect(view.output.matched).toEqual([
      { bank_line: 1, ledger_id: 'L-2', amount: -150 },
      { bank_line: 2, ledger_id: 'L-5', amount: -10 },
      { bank_line: 3, ledger_id: 'L-3', amount: -900 },
    ]);
    expect(done.result.content[2]).toEqual({
      type: 'resource_link',
      uri: `kobana://kadu/files/${view.output_file_ids[0]}`,
      name: 'output_file',
      title: `Output file ${view.output_file_ids[0]}`,
    });
  });

  it('tasks/cancel acknowledges, cancels the execution without a confirmation, and is idempotent', async () => {
    const { created, taskId } = await ambiguousRun();
    const ack = await admin.mcp('2026', 'tasks/cancel', { taskId: created.taskId }, WITH_TASKS);
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const after = (await taskGet(admin, created.taskId)).body.result;
    expect(after).toMatchObject({
      status: 'cancelled',
      statusMessage: expect.stringMatching(/^Cancelled after \d+ steps/),
    });
    expect(after.inputRequests).toBeUndefined();
    expect((await runsOf(taskId))[0].status).toBe('canceled');
    expect(
      (await admin.mcp('2026', 'tasks/cancel', { taskId: created.taskId }, WITH_TASKS)).body.result.resultType,
    ).toBe('complete');
  });
});

describe('another member or organisation', () => {
  it("reads another principal's task id exactly like an unknown one, for get, update and cancel", async () => {
    const created = await runAsTask(admin, { task_id: await newTask('echo'), input: {} });
    const stranger = admin.as({ org: 'globex', user: 'gus@globex.test', role: 'owner' });
    const colleague = admin.as({ user: 'bia@acme.test', role: 'admin' });
    const unknown = await admin.mcp(
      '2026',
      'tasks/get',
      { taskId: `${created.taskId.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAA` },
      WITH_TASKS,
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    for (const who of [stranger, colleague]) {
      for (const [method, extra] of [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: {} }],
        ['tasks/cancel', {}],
      ] as const) {
        const res = await who.mcp('2026', method, { taskId: created.taskId, ...extra }, WITH_TASKS);
        expect(res.status).toBe(200);
        expect(res.body.error).toEqual(unknown.body.error);
      }
    }
    // The owner still sees it, not cancelled.
    expect((await taskGet(admin, created.taskId)).body.result.status).not.toBe('cancelled');
  });
});
