import { DATABASE, type Database } from '../../src/db/database.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * The periodic sweep, without a restart: an execution left `running` that no worker holds is
 * failed `worker_lost`, and one left `queued` that no queue holds is queued again and runs. (In the
 * distributed pass the queue is BullMQ, and "held" is a live worker's lock.)
 */
let kadu: KaduTestApp;
let client: KaduClient;

beforeAll(async () => {
  kadu = await startKadu({ KADU_SWEEP_INTERVAL_MS: '200' });
  client = new KaduClient(kadu);
});
afterAll(() => kadu.close());

it('fails orphaned running executions and queues orphaned queued ones while the app keeps running', async () => {
  const task = (await client.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body.data;
  const db = kadu.app.get(DATABASE) as Database;
  const [{ org_id: orgId, requested_by: memberId }] = await db.query<{ org_id: string; requested_by: string }>(
    `select o.id as org_id, m.id as requested_by from organizations o join members m on m.org_id = o.id where o.slug = 'acme'`,
  );
  // What an outage leaves behind: a row the worker lost mid-run, and a row whose job the queue lost.
  const orphan = async (id: string, status: string) =>
    db.query(
      `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, cost_cap, requested_by, started_at)
       values ($1, $2, $3, $4, '{"left":"behind"}'::jsonb, '[]'::jsonb, '[]'::jsonb, 5, $5, case when $4 = 'running' then now() end)`,
      [id, orgId, task.id, status, memberId],
    );
  await orphan('0190c0de-0000-7000-8000-00000000c0a1', 'running');
  await orphan('0190c0de-0000-7000-8000-00000000c0a2', 'queued');

  const lost = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a1');
  expect(lost).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
  const resumed = await client.waitForExecution('0190c0de-0000-7000-8000-00000000c0a2');
  expect(resumed).toMatchObject({ status: 'succeeded', output: { left: 'behind' } });
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
