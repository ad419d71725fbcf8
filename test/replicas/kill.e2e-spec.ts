import { csvOrganisation, csvSummarySteps, stepsOf } from '../support/csv-organisation.js';
import { type RemoteResponse, RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 14: a replica killed with SIGKILL in the middle of running executions. The live replicas
 * keep answering every request; the dead one's executions are taken up by a live replica once its
 * hold lapses (lock + sweep interval) and resume from their last recorded step (issue 33: csv_summary
 * is resumable) — every execution succeeds, each step recorded once, its cost counted once.
 */
const LOCK_MS = 3000;
const SWEEP_MS = 1000;

const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;

shared.describe('replicas: kill', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    set = await ReplicaSet.start({
      count: 3,
      s3,
      env: {
        KADU_QUEUE_LOCK_MS: String(LOCK_MS),
        KADU_SWEEP_INTERVAL_MS: String(SWEEP_MS),
        KADU_STEP_DELAY_MS: '300',
        KADU_EXECUTION_CONCURRENCY: '2',
      },
    });
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
  });

  const ROWS = 20;
  const organisation = (org: string) => csvOrganisation(set, org, ROWS);

  it("SIGKILL mid-run: no request to a live replica fails; the dead worker's executions resume elsewhere and succeed, steps and cost once", async () => {
    const orgs = await Promise.all(['k1', 'k2', 'k3'].map(organisation));
    const runs: { client: RemoteClient; id: string }[] = [];
    for (const { client, taskId, fileId } of orgs) {
      for (let i = 0; i < 2; i++) {
        const run = await client.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [fileId] });
        expect(run.status).toBe(202);
        runs.push({ client, id: run.body.data.id });
      }
    }
    // Six executions, two per replica (each runs two at a time): all running before the kill.
    for (const run of runs) await run.client.waitForExecution(run.id, (e) => e.status === 'running');

    const answers: RemoteResponse[] = [];
    let loading = true;
    const load = (async () => {
      const failed = (error: unknown) => ({ status: 0, body: String(error) }) as RemoteResponse;
      for (let i = 0; loading && i < 2000; i++) {
        const { client, id } = runs[i % runs.length]!;
        answers.push(await client.rest('get', `/api/v1/executions/${id}`).catch(failed));
        if (i % 3 === 0)
          answers.push(await client.mcp('2026', 'tools/call', { name: 'kadu_usage_get', arguments: {} }).catch(failed));
      }
    })();

    await new Promise((r) => setTimeout(r, 500));
    const victim = set.replicas[1]!;

    await victim.kill('SIGKILL');

    const outcomes = await Promise.all(runs.map((run) => run.client.waitForExecution(run.id, undefined, 60_000))).catch(
      (error) => {
        throw new Error(`${(error as Error).message}\n${set.logs()}`);
      },
    );
    loading = false;
    await load;

    const expected = csvSummarySteps(ROWS);
    for (const [i, e] of outcomes.entries()) {
      expect(e, JSON.stringify(e.error)).toMatchObject({ status: 'succeeded', cost: { spent: expected.cost } });
      const steps = await stepsOf(runs[i]!.client, e.id);
      expect(steps.map((s) => s.kind)).toEqual(expected.kinds);
      expect(steps.map((s) => s.seq)).toEqual(expected.kinds.map((_, n) => n + 1));
    }

    const fromLive = answers.filter((a) => a.servedBy !== victim.name);
    expect(fromLive.length).toBeGreaterThan(50);
    expect(fromLive.filter((a) => a.status !== 200)).toEqual([]);
    // Only what was in flight on the victim when it died can have failed.
    expect(answers.filter((a) => a.servedBy === victim.name && a.status !== 200).length).toBeLessThanOrEqual(2);
  }, 120_000);
});
