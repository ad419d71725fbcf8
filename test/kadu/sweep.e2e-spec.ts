import { DATABASE, type Database } from '../../src/db/database.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * The periodic sweep, without a restart: an execution left `running` that no worker holds resumes
 * from its last recorded step (its kind is resumable; the steps already recorded are neither redone
 * nor charged again), one that has used its resumes up is failed `worker_lost`, and one left
 * `queued` that no queue holds is queued again and runs. (In the distributed pass the queue is
 * BullMQ, and "held" is a live worker's lock.)
 */
let kadu: KaduTestApp;
let client: KaduClient;

beforeAll(async () => {
  kadu = await startKadu({ KADU_SWEEP_INTERVAL_MS: '200' });
  client = new KaduClient(kadu);
});
afterAll(() => kadu.close());

it('resumes orphaned running executions, fails those out of resumes, queues orphaned queued ones, while the app keeps running', async () => {
  const task = (await client.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body.data;
  const db = kadu.app.get(DATABASE) as Database;
  const [{ org_id: orgId, requested_by: memberId }] = await db.query<{ org_id: string; requested_by: string }>(
    `select o.id as org_id, m.id as requested_by from organizations o join members m on m.org_id = o.id where o.slug = 'acme'`,
  );
  // What an outage leaves behind: a row the worker lost mid-run, and a row whose job the queue lost.
  const orphan = async (id: string, status: string, resumes = 0, costSpent = 0) =>
    db.query(
      `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, cost_cap, requested_by,
         started_at, resumes, cost_spent, run_start_seq, run_token)
       values ($1, $2, $3, $4, '{"left":"behind"}'::jsonb, '[]'::jsonb, '[]'::jsonb, 5, $5,
         case when $4 = 'running' then now() end, $6, $7, case when $4 = 'running' then 0 end,
         case when $4 = 'running' then 'gone-worker' end)`,
      [id, orgId, task.id, status, memberId, resumes, costSpent],
    );
  await orphan('0190c0de-0000-7000-8000-00000000c0a1', 'running');
  await orphan('0190c0de-0000-7000-8000-00000000c0a2', 'queued');
  await orphan('0190c0de-0000-7000-8000-00000000c0a3', 'running', 3);
  // Lost after its one step was recorded and charged: the resumed run replays it, adds nothing.
  await orphan('0190c0de-0000-7000-8000-00000000c0a4', 'running', 0, 1);
  await db.query(
    `insert into execution_steps (id, org_id, execution_id, seq, kind, summary) values ('0190c0de-0000-7000-8000-00000000c0f4', $1, $2, 1, 'echo', 'Echoed the input back')`,
    [orgId, '0190c0de-0000-7000-8000-00000000c0a4'],
  );

  const steps = async (id: string) =>
    (await client.rest('get', `/api/v1/executions/${id}/steps`)).body.data.map((s: { kind: string }) => s.kind);
  const resumed = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a1');
  expect(resumed).toMatchObject({ status: 'succeeded', output: { left: 'behind' }, cost: { spent: 1, cap: 5 } });
  expect(await steps(resumed.id)).toEqual(['echo']);
  const queued = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a2');
  expect(queued).toMatchObject({ status: 'succeeded', output: { left: 'behind' } });
  const outOfResumes = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a3');
  expect(outOfResumes).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
  expect(outOfResumes.error.message).toContain('could not be resumed');
  const replayed = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a4');
  expect(replayed).toMatchObject({ status: 'succeeded', output: { left: 'behind' }, cost: { spent: 1, cap: 5 } });
  expect(await steps(replayed.id)).toEqual(['echo']);
});

it('leaves alone what a live worker holds', async () => {
  const slow = await startKadu({ KADU_SWEEP_INTERVAL_MS: '100', KADU_STEP_DELAY_MS: '1500' });
  try {
    const c = new KaduClient(slow);
    const task = (await c.rest('post', '/api/v1/tasks', { name: 'slow', kind: 'echo', cost_cap: 5 })).body.data;
    const run = await c.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { n: 1 } });
    await c.waitForExecution(run.body.data.id, (e) => e.status === 'running');
    // Many sweeps pass while its only step takes 1.5 s; it still ends as it should.
    expect(await c.waitForExecution(run.body.data.id)).toMatchObject({ status: 'succeeded', output: { n: 1 } });
  } finally {
    await slow.close();
  }
});
