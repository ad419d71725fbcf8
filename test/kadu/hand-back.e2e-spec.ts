import { openDatabase } from '../../src/db/database.module.js';
import { sameDeployment, startKadu } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { uploadFile } from '../support/files.js';

/**
 * A graceful stop hands the running execution back after the step in progress: it is `queued`
 * again, not failed and not lost, with that run's steps and cost undone — the next run (here, the
 * next start) runs it once, counting each step once.
 */
it('an execution running when the app stops goes back to the queue and then runs once', async () => {
  const first = await startKadu({ KADU_STEP_DELAY_MS: '250' });
  const client = new KaduClient(first);
  const rows = ['amount', '1', '2', '3', '4', '5', '6'].join('\n');
  const fileId = await uploadFile(first, client, 'rows.csv', rows);
  const task = (await client.rest('post', '/api/v1/tasks', { name: 'sum', kind: 'csv_summary', cost_cap: 100 })).body
    .data;
  const run = await client.rest('post', `/api/v1/tasks/${task.id}/run`, { input_file_ids: [fileId] });
  expect(run.status).toBe(202);
  const id = run.body.data.id as string;
  // Stop once it has recorded a step or two (of 8).
  await client.waitForExecution(id, (e) => e.status === 'running' && e.cost.spent >= 2);
  await first.close({ keepData: true });

  // Between the two processes: queued again, nothing of the interrupted run left, not failed.
  const db = await openDatabase(first.config);
  try {
    const [row] = await db.query<{ status: string; cost_spent: number; error: unknown }>(
      'select status, cost_spent, error from executions where id = $1',
      [id],
    );
    expect(row).toEqual({ status: 'queued', cost_spent: 0, error: null });
    expect(await db.query('select seq from execution_steps where execution_id = $1', [id])).toEqual([]);
  } finally {
    await db.close();
  }

  const second = await startKadu(sameDeployment(first.config));
  try {
    const again = new KaduClient(second);
    const done = await again.waitForExecution(id);
    expect(done).toMatchObject({
      status: 'succeeded',
      cost: { spent: 7 },
      output: { rows: 6, totals: { amount: 21 } },
    });
    const steps = (await again.rest('get', `/api/v1/executions/${id}/steps`)).body.data as {
      seq: number;
      kind: string;
    }[];
    expect(steps.map((s) => s.kind).sort()).toEqual(['read', 'row', 'row', 'row', 'row', 'row', 'row', 'write'].sort());
    expect(new Set(steps.map((s) => s.seq)).size).toBe(8);
  } finally {
    await second.close();
  }
}, 60_000);
