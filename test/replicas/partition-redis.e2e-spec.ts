import { expectRefusedWithinBound, summary, underPartition } from '../support/partition.js';
import {
  DETECTION_MS,
  partitionDeployment,
  type PartitionDeployment,
  TIMEOUT_MS,
  unfinished,
} from '../support/partition-deployment.js';
import { createTask } from '../support/executions.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 14: Redis (MCP state store, rate limits, execution queue) cut from three replicas — first
 * refused, then blackholed for 30 s. Every request answers 503 with Retry-After within the bound
 * plus 1 s, in its own envelope; service comes back by itself; no execution is left behind.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let d: PartitionDeployment;
let taskId: string;

shared.describe('replicas: partition-redis', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    d = await partitionDeployment(s3);
    taskId = await createTask(d.client, 'echo', 1, 'partitioned');
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
    await s3?.close();
  });

  /** Two executions in the middle of their (slow) step when the partition begins. */
  async function runsStarted(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await d.client.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { i } });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      ids.push(run.body.data.id);
    }
    for (const id of ids) await d.client.waitForExecution(id, (e) => e.status === 'running');
    return ids;
  }

  /** Twice the detection bound after recovery: nothing `queued` or `running`, every replica up. */
  async function expectNothingLeftBehind(ids: string[]): Promise<void> {
    await new Promise((r) => setTimeout(r, 2 * DETECTION_MS));
    expect(await unfinished(d.client)).toEqual([]);
    for (const id of ids) {
      const execution = (await d.client.rest('get', `/api/v1/executions/${id}`)).body.data;
      if (execution.status === 'failed')
        expect(['worker_lost', 'dependency_unavailable']).toContain(execution.error.code);
      else expect(execution.status).toBe('succeeded');
    }
    expect(d.set.replicas.every((r) => r.alive)).toBe(true);
    // And the whole path works again: a new run is queued, taken by a worker and finished.
    const after = await d.client.rest('post', `/api/v1/tasks/${taskId}/run`, { input: { after: true } });
    expect(after.status).toBe(202);
    expect(await d.client.waitForExecution(after.body.data.id)).toMatchObject({
      status: 'succeeded',
      output: { after: true },
    });
  }

  it('refused (closed port): 503 within the bound, recovery without restart', async () => {
    const ids = await runsStarted();
    const run = await underPartition(d.client, {
      durationMs: 8000,
      taskId,
      cut: () => d.redis.stop(),
      restore: () => d.redis.start(),
    });
    console.log(summary('Redis refused', run));
    expect(run.probes.length).toBeGreaterThan(10);
    expectRefusedWithinBound(run.probes, TIMEOUT_MS, ['service_unavailable']);
    expect(run.recoveredAfterMs).toBeLessThan(10_000);
    await expectNothingLeftBehind(ids);
  }, 120_000);

  it('blackholed for 30 s (connections held, bytes dropped): 503 within the bound, recovery without restart', async () => {
    const ids = await runsStarted();
    const run = await underPartition(d.client, {
      durationMs: 30_000,
      taskId,
      cut: () => d.redis.blackhole(),
      restore: () => d.redis.heal(),
    });
    console.log(summary('Redis blackholed', run));
    expect(run.probes.length).toBeGreaterThan(10);
    expectRefusedWithinBound(run.probes, TIMEOUT_MS, ['service_unavailable']);
    expect(run.recoveredAfterMs).toBeLessThan(10_000);
    await expectNothingLeftBehind(ids);
  }, 180_000);
});
