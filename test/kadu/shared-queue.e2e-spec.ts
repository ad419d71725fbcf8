import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PG_URL, postgres, REDIS_URL, redis, requires } from '../support/infrastructure.js';
import { eventually } from '../support/eventually.js';
import { loadConfig } from '../../src/config/app-config.js';
import { DATABASE, type Database } from '../../src/db/database.js';
import { type KaduTestApp, startKadu } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * The distributed topology's execution queue (BullMQ on Redis): replicas sharing one PostgreSQL
 * and one Redis. Any replica's worker runs any replica's executions, and the execution of a worker
 * that dies mid-run is failed explicitly by a live replica — never left `running`.
 */
const needs = requires(await postgres(), await redis());

/** Replicas of one deployment: same database schema, same Redis prefix, their own data folders. */
function deployment() {
  const schema = `kadu_q_${randomBytes(6).toString('hex')}`;
  const prefix = `kadu-q-${randomBytes(6).toString('hex')}:`;
  const apps: KaduTestApp[] = [];
  return {
    prefix,
    async replica(env: Record<string, string> = {}): Promise<KaduTestApp> {
      const app = await startKadu({
        DATA_DIR: mkdtempSync(join(tmpdir(), 'kadu-replica-')),
        DATABASE_URL: PG_URL,
        DATABASE_SCHEMA: schema,
        REDIS_URL,
        REDIS_PREFIX: prefix,
        // Replicas share the secret that seals cursors and tokens' state, as docs/operators/replicas.md asks.
        MCP_STATE_KEY: `shared-${schema}`,
        ...env,
      });
      apps.push(app);
      return app;
    },
    async close(): Promise<void> {
      for (const app of apps.splice(0)) await app.close({ keepData: true });
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

needs.describe('the shared execution queue (BullMQ)', () => {
  it('a replica that only queues has its executions run by another replica', async () => {
    const d = deployment();
    const queue = new Queue('executions', {
      connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: `${d.prefix}queue`,
    });
    try {
      const front = await d.replica({ KADU_EXECUTION_CONCURRENCY: '0' });
      const frontClient = new KaduClient(front);
      const task = (await frontClient.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body
        .data;
      const queued = await frontClient.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { hello: 'replicas' } });
      expect(queued.status).toBe(202);
      expect(queued.body.data.status).toBe('queued');
      // Nobody runs it yet: the only replica has no worker, so the job waits in the shared queue.
      expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 1, active: 0 });
      expect((await frontClient.rest('get', `/api/v1/executions/${queued.body.data.id}`)).body.data.status).toBe(
        'queued',
      );

      await d.replica({ KADU_EXECUTION_CONCURRENCY: '2' });
      const done = await frontClient.waitForExecution(queued.body.data.id);
      expect(done).toMatchObject({ status: 'succeeded', output: { hello: 'replicas' } });
    } finally {
      await queue.close();
      await d.close();
    }
  });

  it('the execution of a worker that dies mid-run is resumed by a live replica, not before, its steps once', async () => {
    const d = deployment();
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue('executions', { connection, prefix: `${d.prefix}queue` });
    let doomed: Worker | undefined;
    try {
      // The database of the deployment, and an execution a worker has claimed (`running`).
      const front = await d.replica({ KADU_EXECUTION_CONCURRENCY: '0' });
      const client = new KaduClient(front);
      const task = (await client.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body.data;
      const db = front.app.get(DATABASE) as Database;
      const [{ id: memberId }] = await db.query<{ id: string }>(
        `select m.id from members m join organizations o on o.id = m.org_id where o.slug = 'acme'`,
      );
      const executionId = '0190c0de-0000-7000-8000-00000000b0b0';
      await db.query(
        `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, cost_cap, requested_by, started_at)
         select $1, org_id, id, 'running', '{}'::jsonb, '[]'::jsonb, '[]'::jsonb, 5, $2, now() from tasks where id = $3`,
        [executionId, memberId, task.id],
      );
      // That worker holds the job (its lock renewed while it lives) and never finishes. Its lock is
      // long enough to stay renewed while a replica boots in this process; it runs no stalled check
      // itself, so the only check that runs is the live replica's.
      let taken!: () => void;
      const holding = new Promise<void>((r) => (taken = r));
      doomed = new Worker(
        'executions',
        () => {
          taken();
          return new Promise(() => undefined);
        },
        {
          connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
          prefix: `${d.prefix}queue`,
          lockDuration: 4000,
          skipStalledCheck: true,
        },
      );
      // Queued the way the app queues it: one job per execution, named by its id.
      await queue.add('run', { executionId }, { jobId: executionId });
      await holding;

      // A replica starting meanwhile leaves it alone: a live worker holds it. BullMQ stamps each
      // stalled-jobs check in Redis: once the replica has run three, it has seen the job held.
      const checkKey = `${d.prefix}queue:executions:stalled-check`;
      expect(await connection.get(checkKey)).toBeNull();
      await d.replica({ KADU_EXECUTION_CONCURRENCY: '2', KADU_QUEUE_LOCK_MS: '1000' });
      const checks = new Set<string>();
      await eventually(
        'three stalled-jobs checks by the live replica',
        async () => {
          const stamp = await connection.get(checkKey);
          if (stamp) checks.add(stamp);
          return checks.size;
        },
        (n) => n >= 3,
      );
      expect((await client.rest('get', `/api/v1/executions/${executionId}`)).body.data.status).toBe('running');

      // The worker dies (its lock is no longer renewed): the live replica takes the run up again
      // (echo resumes, docs/kadu.md "Executions") and finishes it, each step once, charged once.
      await doomed.close(true);
      doomed = undefined;
      const resumed = await client.waitForExecution(executionId);
      expect(resumed).toMatchObject({ status: 'succeeded', output: {}, cost: { spent: 1, cap: 5 } });
      expect(resumed.finished_at).not.toBeNull();
      const steps = (await client.rest('get', `/api/v1/executions/${executionId}/steps`)).body.data;
      expect(steps.map((s: { kind: string }) => s.kind)).toEqual(['echo']);
    } finally {
      await doomed?.close(true);
      await queue.close();
      connection.disconnect();
      await d.close();
    }
  });
});

describe('the shared queue away and back', () => {
  needs.it(
    'a run answers 503 with Retry-After and stores nothing while Redis is away, and runs once it is back',
    async () => {
      const target = new URL(REDIS_URL);
      const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
      await proxy.start();
      // Budgets off: the request reaches the queue rather than stopping at the rate-limit store.
      const kadu = await startKadu({
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_PREFIX: `kadu-qfault-${randomBytes(6).toString('hex')}:`,
        KADU_RATE_GENERAL: 'off',
        KADU_RATE_WRITES: 'off',
        KADU_RATE_FAILED_AUTH: 'off',
      });
      try {
        const client = new KaduClient(kadu);
        const task = (await client.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body
          .data;
        await proxy.stop();
        const down = await client.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { n: 1 } });
        expect(down.status).toBe(503);
        expect(down.headers['retry-after']).toBe('5');
        expect(down.body.errors[0].code).toBe('service_unavailable');
        expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toEqual([]);

        await proxy.start();
        const res = await eventually(
          'a run accepted once Redis is back',
          () => client.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { n: 2 } }),
          (r) => r.status !== 503,
          { intervalMs: 250 },
        );
        expect(res.status).toBe(202);
        expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toHaveLength(1);
        expect(await client.waitForExecution(res.body.data.id)).toMatchObject({
          status: 'succeeded',
          output: { n: 2 },
        });
      } finally {
        await kadu.close();
        await proxy.stop();
      }
    },
  );
});

describe('KADU_EXECUTION_CONCURRENCY', () => {
  it('0 (a replica that only queues) is refused without the shared queue, accepted with it', () => {
    expect(() => loadConfig({ KADU_EXECUTION_CONCURRENCY: '0' })).toThrow(
      /needs Redis \(REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS\)/,
    );
    expect(loadConfig({ KADU_EXECUTION_CONCURRENCY: '0', REDIS_URL }).executionConcurrency).toBe(0);
    expect(() => loadConfig({ KADU_EXECUTION_CONCURRENCY: '1.5' })).toThrow(/integer/);
    expect(loadConfig({}).executionConcurrency).toBe(2);
  });
});
