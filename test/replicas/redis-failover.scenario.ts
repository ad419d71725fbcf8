import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { csvOrganisation, csvSummarySteps, stepsOf } from '../support/csv-organisation.js';
import { eventually } from '../support/eventually.js';
import type { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import type { S3TestServer } from '../support/s3-server.js';

/**
 * Issue 33: the Redis primary killed (SIGKILL) while two replicas run approvals, webhook deliveries
 * and long executions — on a Sentinel-managed primary and on a Redis Cluster with replicas
 * (docs/operators/topologies.md, "On failover"). Shared by both spec files; each brings its topology.
 */
export interface FailoverTopology {
  readonly env: Record<string, string>;
  /** Resolves once the replicas have what the primary has written so far (replication is asynchronous). */
  replicasCaughtUp(): Promise<void>;
  /** SIGKILLs the primary the deployment's queue lives on; resolves once a replica has taken over. */
  killPrimary(): Promise<{ killed: number; promoted: number }>;
}

const ROWS = 16;
const LOCK_MS = 3000;

/** Counts every POST per delivery and attempt; answers 200 after `delayMs` (deliveries in flight at the kill). */
export class CountingReceiver {
  readonly posts: { delivery: string; attempt: string }[] = [];
  private readonly server: Server;
  url = '';

  constructor(private readonly delayMs: number) {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.posts.push({
          delivery: String(req.headers['x-kadu-delivery']),
          attempt: String(req.headers['x-kadu-delivery-attempt']),
        });
        setTimeout(() => res.end('ok'), this.delayMs);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Two replicas on the topology; locks lapse after 3 s, the sweep looks every second, steps take 300 ms. */
export async function failoverSet(
  s3: S3TestServer,
  topology: Pick<FailoverTopology, 'env'>,
  prefix: string,
): Promise<ReplicaSet> {
  return ReplicaSet.start({
    count: 2,
    s3,
    redisTopology: topology.env,
    env: {
      REDIS_PREFIX: prefix,
      // The start-up check connects to every Sentinel or seed within this bound: a loaded CI machine
      // starting two replicas and six redis-servers at once needs more than the 3 s default.
      KADU_DEPENDENCY_TIMEOUT_MS: '6000',
      KADU_QUEUE_LOCK_MS: String(LOCK_MS),
      KADU_SWEEP_INTERVAL_MS: '1000',
      KADU_STEP_DELAY_MS: '300',
      KADU_EXECUTION_CONCURRENCY: '2',
      WEBHOOK_RETRY_BASE_MS: '200',
    },
  });
}

/** A deployment's own Redis prefix. */
export const failoverPrefix = (): string => `kadu-fo-${randomBytes(4).toString('hex')}:`;

/** Opens the approval page and presses Approve, as a person would; the status of the decision (or of the page). */
async function approve(baseUrl: string, approvalUrl: string): Promise<{ status: number }> {
  const path = new URL(approvalUrl).pathname;
  const page = await fetch(`${baseUrl}${path}`);
  if (page.status !== 200) return { status: page.status };
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  const decided = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrf!, decision: 'approve' }),
  });
  return { status: decided.status };
}

/** Until the clients have found the new primary a request may answer 503; a bounded wait for anything else. */
async function untilNot503<T extends { status: number }>(what: string, call: () => Promise<T>): Promise<T> {
  let last!: T;
  await eventually(
    what,
    async () => (last = await call()).status,
    (status) => status !== 503,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  return last;
}

/** A tools/call whose HTTP answer may be 503 meanwhile: `{ status, body }` with the tool's parsed JSON. */
async function callTool(client: RemoteClient, args: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await client.mcp('2025', 'tools/call', { name: 'kadu_tasks_run', arguments: args });
  if (response.status !== 200) return { status: response.status, body: response.body };
  const text = (response.body.result?.content as { type: string; text: string }[] | undefined)?.find(
    (c) => c.type === 'text',
  )?.text;
  return { status: 200, body: text ? JSON.parse(text) : response.body };
}

interface Org {
  name: string;
  client: RemoteClient;
  csvTask: string;
  fileId: string;
  echoTask: string;
  hookId: string;
}
interface Run {
  org: Org;
  id: string;
  long: boolean;
}
type Delivery = { id: string; status: string; attempts: number };

/** An organisation with a csv_summary task and its input, an echo task, both announced to the receiver. */
async function organisation(set: ReplicaSet, name: string, receiverUrl: string): Promise<Org> {
  const { client, taskId: csvTask, fileId } = await csvOrganisation(set, name, ROWS);
  const hook = await client.rest('post', '/api/v1/webhooks', { url: receiverUrl, events: ['execution.succeeded'] });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  const echo = await client.rest('post', '/api/v1/tasks', { name: 'approved', kind: 'echo', cost_cap: 5 });
  for (const task of [csvTask, echo.body.data.id])
    expect(
      (
        await client.rest('put', `/api/v1/tasks/${task}/destinations`, {
          destinations: [{ type: 'webhook', webhook_id: hook.body.data.id }],
        })
      ).status,
    ).toBe(200);
  return { name, client, csvTask, fileId, echoTask: echo.body.data.id, hookId: hook.body.data.id };
}

const deliveriesOf = async (org: Org): Promise<Delivery[]> =>
  (await org.client.rest('get', `/api/v1/webhook_deliveries?webhook_id=${org.hookId}&limit=100`)).body.data;

/** Runs the scenario and asserts it; returns how long the failover took, for the log. */
export async function primaryKilledMidRun(set: ReplicaSet, topology: FailoverTopology): Promise<number> {
  const receiver = new CountingReceiver(1000);
  await receiver.start();
  try {
    // Three organisations (each runs at most two executions at once): two with two long runs each,
    // one with quick runs and the approvals. Every execution is announced to the receiver.
    const [long1, long2, quick] = await Promise.all(
      ['failover-a', 'failover-b', 'failover-c'].map((org) => organisation(set, org, receiver.url)),
    );
    const runs: Run[] = [];
    const start = async (org: Org, task: string, body: Record<string, unknown>): Promise<Run> => {
      const run = await org.client.rest('post', `/api/v1/tasks/${task}/run`, body);
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      runs.push({ org, id: run.body.data.id, long: task === org.csvTask });
      return runs.at(-1)!;
    };
    // Deliveries in flight at the kill: two quick runs announced to a receiver that takes 1 s to answer.
    for (let i = 0; i < 2; i++) await start(quick, quick.echoTask, { input: { i } });
    // Long runs: four csv_summary runs, all running (on both replicas: each runs two at a time).
    for (const org of [long1, long2])
      for (let i = 0; i < 2; i++) await start(org, org.csvTask, { input_file_ids: [org.fileId] });
    for (const run of runs.filter((r) => r.long))
      await run.org.client.waitForExecution(run.id, (e) => e.status === 'running');
    // Approvals: one pending (the person decides after the failover), one approved whose call comes after it.
    const pending = await callTool(quick.client, { task_id: quick.echoTask, input: { approval: 'pending' } });
    expect(pending.body.error.code).toBe('approval_required');
    const approvedFirst = await callTool(quick.client, { task_id: quick.echoTask, input: { approval: 'before' } });
    expect(approvedFirst.body.error.code).toBe('approval_required');
    expect(await approve(set.url, approvedFirst.body.error.approval_url)).toEqual({ status: 200 });
    await eventually('a delivery is in flight', async () => receiver.posts.length > 0, undefined, {
      timeoutMs: 30_000,
    });

    await topology.replicasCaughtUp();
    const started = Date.now();
    const { killed, promoted } = await topology.killPrimary();
    expect(promoted).not.toBe(killed);
    const failoverMs = Date.now() - started;

    // No lost approval: the pending one is approved now, and each approved call runs once.
    const decided = await untilNot503('the approval page', () => approve(set.url, pending.body.error.approval_url));
    expect(decided).toEqual({ status: 200 });
    for (const approval of ['pending', 'before']) {
      const args = { task_id: quick.echoTask, input: { approval } };
      const ran = await untilNot503(`the ${approval} call`, () => callTool(quick.client, args));
      expect(ran.body.data, JSON.stringify(ran.body)).toMatchObject({ status: 'queued' });
      runs.push({ org: quick, id: ran.body.data.id, long: false });
      const again = await untilNot503(`the ${approval} call again`, () => callTool(quick.client, args));
      expect(again.body.error.code).toBe('approval_required');
    }

    // Every execution ends succeeded (both kinds resume after an outage), steps and cost once.
    const outcomes = await Promise.all(runs.map((r) => r.org.client.waitForExecution(r.id, undefined, 90_000))).catch(
      (error) => {
        throw new Error(`${(error as Error).message}\n${set.logs()}`);
      },
    );
    for (const e of outcomes) expect(e, JSON.stringify(e.error)).toMatchObject({ status: 'succeeded' });
    const expected = csvSummarySteps(ROWS);
    for (const [i, run] of runs.entries()) {
      if (!run.long) continue;
      expect(outcomes[i].cost.spent).toBe(expected.cost);
      const steps = await stepsOf(run.org.client, run.id);
      expect(steps.map((s) => s.kind)).toEqual(expected.kinds);
      expect(steps.map((s) => s.seq)).toEqual(expected.kinds.map((_, n) => n + 1));
    }
    const echoes = (await quick.client.rest('get', `/api/v1/executions?task_id=${quick.echoTask}&limit=100`)).body.data;
    expect(echoes).toHaveLength(4);

    // No duplicate webhook attempt: one delivery per execution, delivered; one POST per attempt the API lists.
    const log: Delivery[] = [];
    for (const org of [long1, long2, quick]) {
      const expectedDeliveries = runs.filter((r) => r.org === org).length;
      log.push(
        ...(await eventually(
          `every delivery of ${org.name} delivered`,
          () => deliveriesOf(org),
          (list) => list.length === expectedDeliveries && list.every((d) => d.status === 'delivered'),
          { timeoutMs: 60_000, intervalMs: 200 },
        )),
      );
    }
    const attempts = log.reduce((sum, d) => sum + d.attempts, 0);
    await eventually('the receiver has every attempt', async () => receiver.posts.length >= attempts);
    const keys = receiver.posts.map((p) => `${p.delivery}#${p.attempt}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(attempts);
    expect(new Set(receiver.posts.map((p) => p.delivery))).toEqual(new Set(log.map((d) => d.id)));
    return failoverMs;
  } finally {
    await receiver.stop();
  }
}
