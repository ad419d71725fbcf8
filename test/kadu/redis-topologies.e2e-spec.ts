import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  redisToolsMissing,
  startRedisCluster,
  startRedisSentinel,
  type RunningRedisCluster,
  type RunningRedisSentinel,
} from '../../scripts/redis-topologies.mjs';
import { decide } from '../support/approvals.js';
import { requires, type Requirement } from '../support/infrastructure.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * Kadu on Redis Cluster (three primaries) and on a Sentinel-managed primary
 * (docs/operators/topologies.md): every Redis user — the execution queue (BullMQ, its prefix
 * hash-tagged into one slot), the state store (approvals, request state), the budgets — works on
 * each; killing the Sentinel primary loses no pending approval and no execution.
 */
const tools: Requirement = redisToolsMissing() ? { missing: redisToolsMissing() } : {};
const gate = requires(tools);
const prefix = () => `kadu-topo-${randomBytes(4).toString('hex')}:`;

async function everyRedisUser(kadu: KaduTestApp): Promise<void> {
  const admin = new KaduClient(kadu, { role: 'admin' });
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'topology', kind: 'echo', cost_cap: 5 })).body.data;
  // The queue: queued on Redis, taken by the worker, finished.
  const run = await admin.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { on: 'topology' } });
  expect(run.status).toBe(202);
  expect(await admin.waitForExecution(run.body.data.id)).toMatchObject({
    status: 'succeeded',
    output: { on: 'topology' },
  });
  // The state store: a destructive tool asks first, in both eras (elicitation, then the approval page).
  for (const era of ['2026', '2025'] as const) {
    const confirmed = await admin.confirmedTool(era, 'kadu_tasks_run', { task_id: task.id, input: { era } });
    expect(confirmed.isError, JSON.stringify(confirmed.body)).toBe(false);
    expect(await admin.waitForExecution(confirmed.body.data.id)).toMatchObject({
      status: 'succeeded',
      output: { era },
    });
  }
  // The budgets: the write budget (KADU_RATE_WRITES=8/60 here) refuses the next write with 429.
  let status = 0;
  for (let i = 0; i < 10 && status !== 429; i++)
    status = (await admin.rest('post', '/api/v1/tasks', { name: `w${i}`, kind: 'echo', cost_cap: 1 })).status;
  expect(status).toBe(429);
}

gate.describe('Kadu on Redis Cluster (three primaries)', () => {
  let cluster: RunningRedisCluster;
  let kadu: KaduTestApp;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    // The cluster is this test's own: a fixed prefix keeps the keys' names, hence their slots, the
    // same in every run.
    kadu = await startKadu({
      REDIS_URL: '',
      ...cluster.env,
      REDIS_PREFIX: 'kadu-topo-cluster:',
      KADU_RATE_WRITES: '8/60',
    });
  }, 60_000);
  afterAll(async () => {
    await kadu?.close();
    await cluster?.stop();
  });

  it('the queue, the state store and the budgets work, their keys spread over the slots', async () => {
    await everyRedisUser(kadu);
    const cli = (port: number, ...args: string[]): string[] => {
      const run = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
      if (run.status !== 0 || run.stderr) throw new Error(`redis-cli ${args.join(' ')}: ${run.stderr}`);
      return run.stdout.split('\n').filter(Boolean);
    };
    const keysOn = (port: number, pattern: string): string[] => cli(port, '--scan', '--pattern', pattern);
    const slotOf = (key: string): number => Number(cli(cluster.ports[0], 'cluster', 'keyslot', key)[0]);
    // BullMQ's keys all in one slot, on one primary (its scripts take several at once).
    const queuePattern = `{${kadu.config.redisPrefix}queue}:*`;
    const queueKeys = cluster.ports.map((port) => keysOn(port, queuePattern));
    expect(queueKeys.filter((keys) => keys.length > 0)).toHaveLength(1);
    expect(new Set(queueKeys.flat().map(slotOf)).size).toBe(1);
    // Every other key (approvals, request state, budgets) hashes on its own name: no hash tag pins
    // them to one slot, so the cluster spreads them over its primaries. Which primaries a given run's
    // keys land on depends on their names, so the test counts slots, not primaries: the budgets' two
    // keys (a 60-s window) are enough, whatever else has expired.
    const queueKeySet = new Set(queueKeys.flat());
    const otherKeys = cluster.ports
      .flatMap((port) => keysOn(port, `${kadu.config.redisPrefix}*`))
      .filter((key) => !queueKeySet.has(key));
    expect(otherKeys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(otherKeys.map(slotOf)).size).toBeGreaterThanOrEqual(2);
  });
});

gate.describe('Kadu on a Sentinel-managed primary', () => {
  let sentinel: RunningRedisSentinel;
  let kadu: KaduTestApp;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    kadu = await startKadu({ REDIS_URL: '', ...sentinel.env, REDIS_PREFIX: prefix(), KADU_RATE_WRITES: '8/60' });
  }, 60_000);
  afterAll(async () => {
    await kadu?.close();
    await sentinel?.stop();
  });

  it('the queue, the state store and the budgets work', async () => {
    await everyRedisUser(kadu);
  });

  it('the primary killed: after the failover the pending approval is still there, and the run happens once', async () => {
    const admin = new KaduClient(kadu, { role: 'admin', user: 'failover@acme.test' });
    const task = (await admin.rest('post', '/api/v1/tasks', { name: 'failover', kind: 'echo', cost_cap: 5 })).body.data;
    const asked = await admin.tool('2025', 'kadu_tasks_run', { task_id: task.id, input: { failover: true } });
    expect(asked.body.error.code).toBe('approval_required');
    // Replication is asynchronous: the replica has the approval before the primary goes.
    await sentinel.replicasCaughtUp();
    const { killed, promoted } = await sentinel.killPrimary();
    expect(promoted).not.toBe(killed);

    // Until the clients have found the new primary, requests may answer 503; then the approval works.
    const approve = async (): Promise<number> => {
      try {
        return (await decide(kadu.server, asked.body.error.approval_url, 'approve')).status;
      } catch (error) {
        if ((error as Error).message === 'approval page answered 503') return 503;
        throw error;
      }
    };
    let decided = await approve();
    for (let i = 0; i < 75 && decided === 503; i++) {
      await new Promise((r) => setTimeout(r, 200));
      decided = await approve();
    }
    expect(decided).toBe(200);
    const ran = await admin.tool('2025', 'kadu_tasks_run', { task_id: task.id, input: { failover: true } });
    expect(ran.isError, JSON.stringify(ran.body)).toBe(false);
    expect(await admin.waitForExecution(ran.body.data.id)).toMatchObject({ status: 'succeeded' });
    const runs = (await admin.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data;
    expect(runs).toHaveLength(1);
  }, 60_000);
});
