import { csvOrganisation, csvSummarySteps, stepsOf } from '../support/csv-organisation.js';
import { partitionDeployment, type PartitionDeployment, unfinished } from '../support/partition-deployment.js';
import type { RemoteClient } from '../support/remote-client.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 33: a 15 s partition of Redis, then of PostgreSQL (the TCP proxy blackholes: connections
 * held, no byte through), while long executions run on three replicas. Their workers lose their
 * hold (Redis) or their database (PostgreSQL) mid-run; once the dependency is back every run —
 * csv_summary is resumable — continues from its last recorded step and ends `succeeded`, each
 * step recorded once, its cost counted once.
 */
const shared = requires(await postgres(), await redis());
const ROWS = 8;
const CUT_MS = 15_000;
let s3: S3TestServer;
let d: PartitionDeployment;

shared.describe('replicas: executions survive an outage', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    d = await partitionDeployment(s3);
  }, 120_000);

  afterAll(async () => {
    await d?.stop();
    await s3?.close();
  });

  /** Four long runs (two organisations, two each), all running. Each step takes 1.5 s. */
  async function longRuns(tag: string): Promise<{ client: RemoteClient; id: string }[]> {
    const runs: { client: RemoteClient; id: string }[] = [];
    for (const org of [`${tag}-a`, `${tag}-b`]) {
      const { client, taskId, fileId } = await csvOrganisation(d.set, org, ROWS);
      for (let i = 0; i < 2; i++) {
        const run = await client.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [fileId] });
        expect(run.status, JSON.stringify(run.body)).toBe(202);
        runs.push({ client, id: run.body.data.id });
      }
    }
    for (const run of runs) await run.client.waitForExecution(run.id, (e) => e.status === 'running', 30_000);
    return runs;
  }

  async function expectAllSucceededOnce(runs: { client: RemoteClient; id: string }[]): Promise<void> {
    const outcomes = await Promise.all(runs.map((r) => r.client.waitForExecution(r.id, undefined, 90_000))).catch(
      (error) => {
        throw new Error(`${(error as Error).message}\n${d.set.logs()}`);
      },
    );
    const expected = csvSummarySteps(ROWS);
    for (const [i, e] of outcomes.entries()) {
      expect(e, JSON.stringify(e.error)).toMatchObject({ status: 'succeeded', cost: { spent: expected.cost } });
      const steps = await stepsOf(runs[i]!.client, e.id);
      expect(steps.map((s) => s.kind)).toEqual(expected.kinds);
      expect(steps.map((s) => s.seq)).toEqual(expected.kinds.map((_, n) => n + 1));
      // One output file: a write made before the cut is not made again.
      expect(e.output_file_ids).toHaveLength(1);
    }
    expect(await unfinished(runs[0]!.client)).toEqual([]);
  }

  it('Redis blackholed for 15 s mid-run: every run resumes and succeeds, steps and cost once', async () => {
    const runs = await longRuns('redis-cut');
    await new Promise((r) => setTimeout(r, 2000));
    d.redis.blackhole();
    await new Promise((r) => setTimeout(r, CUT_MS));
    d.redis.heal();
    await expectAllSucceededOnce(runs);
  }, 180_000);

  it('PostgreSQL blackholed for 15 s mid-run: every run resumes and succeeds, steps and cost once', async () => {
    const runs = await longRuns('pg-cut');
    await new Promise((r) => setTimeout(r, 2000));
    d.postgres.blackhole();
    await new Promise((r) => setTimeout(r, CUT_MS));
    d.postgres.heal();
    await expectAllSucceededOnce(runs);
  }, 180_000);
});
