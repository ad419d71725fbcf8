import { DATABASE, type Database } from '../../src/db/database.js';
import { sameDeployment, startKadu } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * A restart leaves no execution stuck: queued work runs, and work that was mid-run resumes from its
 * last recorded step (its kind is resumable, docs/kadu.md "Executions") — or, once out of resumes,
 * is failed explicitly.
 */
it('runs queued executions, resumes the ones a stopped process left running, fails those out of resumes', async () => {
  const first = await startKadu();
  const client = new KaduClient(first);
  const task = (await client.rest('post', '/api/v1/tasks', { name: 'echo', kind: 'echo', cost_cap: 5 })).body.data;
  const db = first.app.get(DATABASE) as Database;
  const [{ org_id: orgId, requested_by: memberId }] = await db.query<{ org_id: string; requested_by: string }>(
    `select o.id as org_id, m.id as requested_by from organizations o join members m on m.org_id = o.id where o.slug = 'acme'`,
  );
  // What a process killed mid-work leaves behind: one execution waiting in its in-memory queue, one half-run.
  const insert = (id: string, status: string, resumes = 0) =>
    db.query(
      `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, cost_cap, requested_by, started_at, resumes)
       values ($1, $2, $3, $4, '{"left":"behind"}'::jsonb, '[]'::jsonb, '[]'::jsonb, 5, $5, case when $4 = 'running' then now() end, $6)`,
      [id, orgId, task.id, status, memberId, resumes],
    );
  await insert('0190c0de-0000-7000-8000-0000000000a1', 'queued');
  await insert('0190c0de-0000-7000-8000-0000000000a2', 'running');
  await insert('0190c0de-0000-7000-8000-0000000000a3', 'running', 3);
  await first.close({ keepData: true });

  const second = await startKadu(sameDeployment(first.config));
  try {
    const again = new KaduClient(second);
    const resumed = await again.waitForExecution('0190c0de-0000-7000-8000-0000000000a1');
    expect(resumed).toMatchObject({ status: 'succeeded', output: { left: 'behind' } });
    const midRun = await again.waitForExecution('0190c0de-0000-7000-8000-0000000000a2');
    expect(midRun).toMatchObject({ status: 'succeeded', output: { left: 'behind' }, cost: { spent: 1 } });
    const lost = await again.waitForExecution('0190c0de-0000-7000-8000-0000000000a3');
    expect(lost).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
    expect(lost.finished_at).not.toBeNull();
    expect((await again.rest('get', '/api/v1/executions?status=running')).body.data).toEqual([]);
    expect((await again.rest('get', '/api/v1/executions?status=queued')).body.data).toEqual([]);
  } finally {
    await second.close();
  }
  // Two starts of the app in one test: the default 20 s is one start's worth on a loaded machine.
}, 60_000);
