import fc from 'fast-check';
import request from 'supertest';
import { ListenStream, modernRequest, type StreamMessage } from '@kobana/nest-mcp/testing';
import { eventually } from '../support/eventually.js';
import { createTask } from '../support/executions.js';
import { uploadFile } from '../support/files.js';
import { checkProperty } from '../support/properties.js';
import { assertNoServerFault, FUZZ_SCALE, hostileText, hostileParamValue } from '../support/hostile.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * Issue 29 point 12. Property-based fuzzing (fast-check, on the suite's fixed seed: test/support/properties.ts) of the params of the Tasks extension
 * (`tasks/get`, `tasks/update`, `tasks/cancel`) and of `subscriptions/listen`'s `notifications`
 * filter, over real HTTP. Malformed params are -32602 (ladder row 15: HTTP 200), a request that does
 * not declare the extension is -32021; nothing is ever a 5xx, -32603, a crash or a hang, and the
 * process keeps serving afterwards. The distributed pass runs the same on PostgreSQL and Redis.
 */
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: {}, extensions: { [TASKS]: {} } };
const ACCEPT = { confirm: { action: 'accept', content: { confirm: true } } };
const RUNS = { tasks: 60 * FUZZ_SCALE, listen: 40 * FUZZ_SCALE };

let kadu: KaduTestApp;
let owner: KaduClient;
/** An owner of another organisation: every id minted for `owner` is foreign to it. */
let stranger: KaduClient;
let mcpToken: string;
let base: string;
/** Public task ids minted for the owner: an echo run (completed) and a reconcile run (waiting for input). */
let finished: string;
let waiting: string;
let executionUri: string;

/** kadu_tasks_run as a client that declares the extension and confirms in the chat: the task id. */
async function runAsTask(args: Record<string, unknown>): Promise<string> {
  const call = (extra: Record<string, unknown> = {}) =>
    owner.mcp('2026', 'tools/call', { name: 'kadu_tasks_run', arguments: args, ...extra }, WITH_TASKS);
  const ask = (await call()).body.result;
  const created = (await call({ requestState: ask.requestState, inputResponses: ACCEPT })).body.result;
  expect(created.resultType).toBe('task');
  return created.taskId as string;
}
const taskStatus = async (taskId: string) =>
  (await owner.mcp('2026', 'tasks/get', { taskId }, WITH_TASKS)).body.result?.status as string | undefined;

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(kadu.server.address() as { port: number }).port}`;
  owner = new KaduClient(kadu, { role: 'owner' });
  stranger = new KaduClient(kadu, { org: 'globex', user: 'gus@globex.test', role: 'owner' });
  mcpToken = await kadu.token({ role: 'owner' });

  finished = await runAsTask({ task_id: await createTask(owner, 'echo'), input: {} });
  const upload = (name: string, content: string) => uploadFile(kadu, owner, name, content);
  const bank = await upload('bank.csv', 'date,description,amount\n2026-11-02,ACME,-150.00\n');
  const ledger = await upload(
    'ledger.csv',
    'id,date,description,amount\nL-1,2026-11-02,A,-150\nL-2,2026-11-02,B,-150\n',
  );
  waiting = await runAsTask({ task_id: await createTask(owner, 'reconcile'), input_file_ids: [bank, ledger] });
  await eventually(
    'the echo task completed',
    () => taskStatus(finished),
    (s) => s === 'completed',
  );
  await eventually(
    'the reconcile task waits for input',
    () => taskStatus(waiting),
    (s) => s === 'input_required',
  );
  const executions = (await owner.rest('get', '/api/v1/executions')).body.data as { id: string }[];
  executionUri = `kobana://kadu/executions/${executions[0]!.id}`;
}, 60_000);
afterAll(() => kadu.close());

describe('the Tasks extension: hostile params', () => {
  /** Ids that look like the real ones: the real ones, cut, stretched, with another MAC, empty. */
  const taskIdLike = fc.oneof(
    fc.constantFrom('real-finished', 'real-waiting'),
    fc.constantFrom('cut', 'stretched', 'swapped-mac', 'no-mac', 'only-dot'),
    hostileParamValue,
  );
  const resolveId = (id: unknown): unknown => {
    const real = id === 'real-waiting' ? waiting : finished;
    const [payload, mac] = real.split('.');
    switch (id) {
      case 'real-finished':
      case 'real-waiting':
        return real;
      case 'cut':
        return real.slice(0, -1);
      case 'stretched':
        return `${real}A`;
      case 'swapped-mac':
        return `${payload}.${mac!.split('').reverse().join('')}`;
      case 'no-mac':
        return payload;
      case 'only-dot':
        return '.';
      default:
        return id;
    }
  };
  /** Answers shaped like elicitation results, for the keys the waiting task asks and for others. */
  const inputResponses = fc.oneof(
    fc.dictionary(
      fc.oneof(fc.constantFrom('r1-line-1', 'r1-line-2', '__proto__', 'constructor'), hostileText),
      fc.oneof(
        hostileParamValue,
        fc.record({
          action: fc.oneof(fc.constantFrom('accept', 'decline', 'cancel'), hostileText),
          content: fc.oneof(
            fc.dictionary(fc.constantFrom('ledger_id', 'confirm'), hostileParamValue),
            hostileParamValue,
          ),
        }),
      ),
      { maxKeys: 4 },
    ),
    hostileParamValue,
  );
  const params = fc.record(
    {
      taskId: taskIdLike,
      inputResponses,
      extra: fc.dictionary(hostileText, hostileParamValue, { maxKeys: 2 }),
    },
    { requiredKeys: [] },
  );

  const UNKNOWN = 'no-such-task';

  it(
    'issue 29 point 12: tasks/get, tasks/update and tasks/cancel, both eras: a malformed, unknown or foreign id answers byte for byte like an unknown one, -32021 without the extension, never a fault',
    async () => {
      await checkProperty(
        'tasks/* params',
        fc.asyncProperty(
          fc.constantFrom('tasks/get', 'tasks/update', 'tasks/cancel'),
          params,
          fc.boolean(),
          fc.constantFrom<'2026' | '2025'>('2026', '2025'),
          fc.constantFrom('owner', 'stranger'),
          async (method, generated, declared, era, who) => {
            const taskId = resolveId(generated);
            // Cancelling the waiting task would leave nothing for tasks/update to reach.
            if (method === 'tasks/cancel' && taskId === waiting && who === 'owner') return;
            const sent: Record<string, unknown> = { ...generated.extra };
            if ('taskId' in generated) sent.taskId = taskId;
            if ('inputResponses' in generated) sent.inputResponses = generated.inputResponses;
            const client = who === 'owner' ? owner : stranger;
            const capabilities = declared ? WITH_TASKS : { elicitation: {} };
            const res = await client.mcp(era, method, sent, capabilities);
            const label = `${era} ${who} ${method} ${JSON.stringify(sent).slice(0, 200)}`;
            assertNoServerFault(res, label);
            const refused = (status: number, code: number) => {
              expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(status);
              expect(res.body.error?.code, `${label}: ${res.text.slice(0, 300)}`).toBe(code);
            };
            // What an unknown id gets with everything else the same: the answer to match byte for byte.
            const asUnknown = async () => {
              const unknown = await client.mcp(era, method, { ...sent, taskId: UNKNOWN }, capabilities);
              expect(res.status, label).toBe(unknown.status);
              // The request ids differ (each request draws its own); everything else is the same bytes.
              const strip = (text: string) => text.replace(/"id":[^,]*,/, '');
              expect(strip(res.text), label).toBe(strip(unknown.text));
            };
            if (era === '2025') return asUnknown();
            // The Mcp-Name header mirrors taskId (ladder row 12): an id that is not a string, or
            // that no header can carry (a lone surrogate), is refused at the header check first.
            if (typeof taskId !== 'string' || /\p{Cs}/u.test(taskId)) return refused(400, -32020);
            if (taskId === '' || taskId.trim() !== taskId) return;
            if (!declared) return refused(400, -32021);
            const real = who === 'owner' && (taskId === finished || taskId === waiting);
            const responses = sent.inputResponses;
            const malformedUpdate =
              method === 'tasks/update' &&
              (typeof responses !== 'object' || responses === null || Array.isArray(responses));
            if (!real || malformedUpdate) refused(200, -32602);
            if (!real) await asUnknown();
          },
        ),
        { numRuns: RUNS.tasks },
      );
    },
    60_000 * FUZZ_SCALE,
  );
});

describe('issue 29 point 12: subscriptions/listen, a hostile notifications filter', () => {
  const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'];
  const LISTS = ['resourceSubscriptions', 'taskIds'];
  const entry = fc.oneof(
    fc.constantFrom('execution', 'execution-steps', 'kobana://kadu/executions/', 'kobana://kadu/'),
    hostileText,
    hostileParamValue,
  );
  const filter = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.dictionary(
        fc.oneof(fc.constantFrom(...FLAGS, ...LISTS), hostileText),
        fc.oneof(fc.boolean(), fc.array(entry, { maxLength: 5 }), hostileParamValue),
        { maxKeys: 4 },
      ),
    },
    { weight: 1, arbitrary: hostileParamValue },
  );
  const resolveEntry = (e: unknown): unknown =>
    e === 'execution' ? executionUri : e === 'execution-steps' ? `${executionUri}/steps` : e;
  const resolveFilter = (f: unknown): unknown => {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) return f;
    return Object.fromEntries(Object.entries(f).map(([k, v]) => [k, Array.isArray(v) ? v.map(resolveEntry) : v]));
  };
  /** The filter is malformed by the schema's own rules (subscriptions.ts), whatever the server offers. */
  function malformed(f: unknown): boolean {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) return true;
    const o = f as Record<string, unknown>;
    if (FLAGS.some((k) => o[k] !== undefined && typeof o[k] !== 'boolean')) return true;
    return LISTS.some(
      (k) =>
        o[k] !== undefined &&
        (!Array.isArray(o[k]) || (o[k] as unknown[]).some((v) => typeof v !== 'string' || v === '' || v.length > 2048)),
    );
  }

  it(
    'issue 29 point 12: a malformed filter is -32602 before any stream opens; any other filter opens an acknowledged stream or is refused without a fault',
    async () => {
      await checkProperty(
        'subscriptions/listen filter',
        fc.asyncProperty(filter, async (generated) => {
          const notifications = resolveFilter(generated);
          const label = JSON.stringify(notifications)?.slice(0, 200) ?? 'undefined';
          const stream = await ListenStream.open(base, mcpToken, notifications as Record<string, unknown>, 'fuzz');
          try {
            if (stream.refusal) {
              const refusal = stream.refusal as StreamMessage;
              assertNoServerFault({ status: stream.status, text: JSON.stringify(refusal), body: refusal }, label);
              expect(refusal.error, label).toBeDefined();
              if (malformed(notifications)) {
                expect(stream.status, label).toBe(200);
                expect(refusal.error.code, label).toBe(-32602);
              }
              return;
            }
            expect(malformed(notifications), `${label} opened a stream`).toBe(false);
            expect(stream.status, label).toBe(200);
            const ack = await stream.next((m) => m.method !== undefined, `${label}: the first message`);
            expect(ack.method, label).toBe('notifications/subscriptions/acknowledged');
            // What is honoured is what was asked, cut to what Kadu offers: per-URI updates only.
            expect(
              Object.keys(ack.params.notifications).every((k) => k === 'resourceSubscriptions'),
              label,
            ).toBe(true);
          } finally {
            stream.close();
            await stream.ended;
          }
        }),
        { numRuns: RUNS.listen },
      );
    },
    20_000 * FUZZ_SCALE,
  );
});

it('the process is healthy after the fuzzing: live, serving MCP, and opening a listen stream', async () => {
  expect((await request(kadu.server).get('/health/live')).status).toBe(200);
  const r = modernRequest('server/discover', {}, { id: 'after' });
  const discover = await request(kadu.server)
    .post('/mcp')
    .set(r.headers)
    .set('Authorization', `Bearer ${mcpToken}`)
    .send(r.body);
  expect(discover.status).toBe(200);
  expect(discover.body).toMatchObject({ jsonrpc: '2.0', id: 'after', result: { resultType: 'complete' } });
  // Streams closed by the fuzzing end on the server as their sockets close: wait for that, not a guess.
  const stream = await eventually(
    'a listen stream opens',
    async () => {
      const s = await ListenStream.open(base, mcpToken, { resourceSubscriptions: [executionUri] }, 'after');
      if (s.refusal) await s.ended;
      return s;
    },
    (s) => !s.refusal,
  );
  try {
    const ack = await stream.next((m) => m.method !== undefined, 'the acknowledgement');
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: [executionUri] } },
    });
  } finally {
    stream.close();
  }
});
