import { McpEvents } from '@kobana/nest-mcp';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { eventually } from '../support/eventually.js';
import { uploadFile } from '../support/files.js';
import { ListenStream, type StreamMessage, SUB } from '@kobana/nest-mcp/testing';
import { TWO_AMBIGUITIES_BANK_CSV, TWO_AMBIGUITIES_LEDGER_CSV } from '../support/executions.js';

/**
 * Issue 21 with the Tasks extension: a listen stream following a task id (`taskIds`) hears
 * `notifications/tasks` for every change of the execution behind it — the worker's (running, its
 * steps, the end), an answer, a cancel — in order, whichever process made it (embedded here; on
 * PostgreSQL + Redis in the distributed pass). Only the member who ran it can follow it.
 */
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };

let kadu: KaduTestApp;
let admin: KaduClient;
let base: string;
const open: ListenStream[] = [];

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(kadu.server.address() as { port: number }).port}`;
  admin = new KaduClient(kadu);
}, 120_000);
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => kadu.close());

async function listen(token: string, notifications: Record<string, unknown>, id: string): Promise<ListenStream> {
  const stream = await ListenStream.open(base, token, notifications, id);
  open.push(stream);
  return stream;
}

/** A reconcile run as a task, waiting for answers on two ambiguous lines. */
async function waitingTask(): Promise<{ taskId: string; executionId: string }> {
  const bank = await uploadFile(kadu, admin, 'bank.csv', TWO_AMBIGUITIES_BANK_CSV);
  const ledger = await uploadFile(kadu, admin, 'ledger.csv', TWO_AMBIGUITIES_LEDGER_CSV);
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'followed', kind: 'reconcile', cost_cap: 50 })).body
    .data.id;
  const args = { task_id: task, input_file_ids: [bank, ledger] };
  const ask = (await admin.mcp('2026', 'tools/call', { name: 'kadu_tasks_run', arguments: args }, WITH_TASKS)).body
    .result;
  const created = (
    await admin.mcp(
      '2026',
      'tools/call',
      { name: 'kadu_tasks_run', arguments: args, requestState: ask.requestState, inputResponses: ACCEPT },
      WITH_TASKS,
    )
  ).body.result;
  expect(created.resultType).toBe('task');
  await eventually(
    'the task waiting for input',
    async () => (await admin.mcp('2026', 'tasks/get', { taskId: created.taskId }, WITH_TASKS)).body.result,
    (r) => r?.status === 'input_required',
  );
  const [execution] = (await admin.rest('get', `/api/v1/executions?task_id=${task}`)).body.data;
  return { taskId: created.taskId, executionId: execution.id };
}

const answer = (taskId: string, key: string, ledgerId: string) =>
  admin.mcp(
    '2026',
    'tasks/update',
    { taskId, inputResponses: { [key]: { action: 'accept', content: { ledger_id: ledgerId } } } },
    WITH_TASKS,
  );
const isTask = (m: StreamMessage) => m.method === 'notifications/tasks';
/** The first word of each status message ("Queued", "Running", …), consecutive repeats folded. */
const phases = (messages: StreamMessage[]) =>
  messages
    .filter(isTask)
    .map((m) => `${m.params.status}:${String(m.params.statusMessage).split(/[; ]/)[0]}`)
    .filter((phase, i, all) => phase !== all[i - 1]);

describe('task status notifications on subscriptions/listen', () => {
  it('a stream following the task id hears each answer and every status change of the worker (running, asking, the end), in order', async () => {
    const { taskId, executionId } = await waitingTask();
    const stream = await listen(await kadu.token(), { taskIds: [taskId] }, 'follow-task');
    expect(stream.status).toBe(200);
    expect(await stream.next(() => true, 'the acknowledgement')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] }, _meta: { [SUB]: 'follow-task' } },
    });

    // One line answered: still waiting, now for the other line only.
    await answer(taskId, 'r1-line-1', 'L-2');
    await stream.next((m) => isTask(m) && m.params.status === 'input_required', 'input_required');
    // Continued without decisions: the worker runs it again and asks again (its own input_required).
    expect(
      (await admin.rest('post', `/api/v1/executions/${executionId}/continue`, { answers: { decisions: {} } })).status,
    ).toBe(202);
    const waits = () => stream.messages.filter((m) => isTask(m) && m.params.status === 'input_required').length;
    await stream.next(() => waits() === 2, "the worker's input_required");
    const asked = (await admin.mcp('2026', 'tasks/get', { taskId }, WITH_TASKS)).body.result;
    expect(Object.keys(asked.inputRequests)).toEqual(['r2-line-1', 'r2-line-2']);
    // Both lines answered: queued again, then the worker runs it to the end.
    await admin.mcp(
      '2026',
      'tasks/update',
      {
        taskId,
        inputResponses: {
          'r2-line-1': { action: 'accept', content: { ledger_id: 'L-2' } },
          'r2-line-2': { action: 'accept', content: { ledger_id: 'L-5' } },
        },
      },
      WITH_TASKS,
    );
    const done = await stream.next((m) => isTask(m) && m.params.status === 'completed', 'completed');

    expect(phases(stream.messages)).toEqual([
      'input_required:Waiting',
      'working:Queued',
      'working:Running',
      'input_required:Waiting',
      'working:Queued',
      'working:Running',
      'completed:Succeeded',
    ]);
    const final = (await admin.mcp('2026', 'tasks/get', { taskId }, WITH_TASKS)).body.result;
    // The Task fields as tasks/get shows them, tagged with the subscription id; no result on the stream.
    expect(done).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: {
        taskId,
        status: 'completed',
        statusMessage: final.statusMessage,
        createdAt: final.createdAt,
        lastUpdatedAt: final.lastUpdatedAt,
        ttlMs: null,
        _meta: { [SUB]: 'follow-task' },
      },
    });
    for (const m of stream.messages.filter(isTask)) expect(m.params.taskId).toBe(taskId);
    // Every step the worker added was announced (the status message counts them).
    const steps = (await admin.rest('get', `/api/v1/executions/${executionId}/steps`)).body.data.length;
    expect(done.params.statusMessage).toMatch(new RegExp(`^Succeeded after ${steps} steps`));
  });

  it('a cancel of the waiting task is heard as cancelled', async () => {
    const { taskId } = await waitingTask();
    const stream = await listen(await kadu.token(), { taskIds: [taskId] }, 'cancel');
    await stream.next(() => true, 'the acknowledgement');
    await admin.mcp('2026', 'tasks/cancel', { taskId }, WITH_TASKS);
    const cancelled = await stream.next((m) => isTask(m) && m.params.status === 'cancelled', 'cancelled');
    expect(cancelled.params.statusMessage).toMatch(/^Cancelled after \d+ steps/);
  });

  it('another organisation, and another member, cannot follow the task: refused like an id that does not exist', async () => {
    const { taskId } = await waitingTask();
    const made = `${taskId.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAA`;
    const tokens = [
      await kadu.token({ org: 'globex', user: 'eve@globex.test', role: 'owner' }),
      await kadu.token({ user: 'bia@acme.test', role: 'admin' }),
    ];
    for (const token of tokens) {
      for (const id of [taskId, made]) {
        const refused = await listen(token, { taskIds: [id] }, 'x');
        expect(refused.contentType).toMatch(/^application\/json/);
        expect(refused.refusal).toEqual({
          jsonrpc: '2.0',
          id: 'x',
          error: { code: -32602, message: `Task not found: ${id}`, data: { taskId: id } },
        });
      }
    }
    // At delivery, too, a task event is heard only by streams of its audience (the organisation).
    const mine = await listen(await kadu.token(), { taskIds: [taskId] }, 'mine');
    await mine.next(() => true, 'the acknowledgement');
    const events = kadu.app.get(McpEvents);
    await events.taskStatus(taskId, { status: 'working', mark: 'foreign' }, 'globex');
    await events.taskStatus(taskId, { status: 'working', mark: 'own' }, 'acme');
    await mine.next((m) => m.params?.mark === 'own', 'the own event');
    expect(mine.messages.filter(isTask).map((m) => m.params.mark)).toEqual(['own']);
  });
});
