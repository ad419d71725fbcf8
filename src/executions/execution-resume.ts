import type { Queryable } from '../db/database.js';
import type { ExecutionRow } from './execution.view.js';
import { RESUMABLE_KINDS } from './kinds/registry.js';

/**
 * How often one run may be taken up again after its worker lost it (a dead replica, a hold lost
 * while Redis was away, PostgreSQL away mid-run). Past it the run is failed `worker_lost`: an
 * outage that keeps coming back should be seen, not retried forever.
 */
export const MAX_RESUMES = 3;

const RESUMABLE = `(select kind from tasks t where t.id = executions.task_id) = any($3::text[])`;

/**
 * A worker handed the job of a run whose worker lost its hold (BullMQ redelivered it) takes the
 * run over: a new run token, so the old worker — if it still runs — writes nothing more.
 * Undefined when the run is not resumable (kind, resumes used up) or no longer running.
 */
export async function takeOver(db: Queryable, id: string, token: string): Promise<ExecutionRow | undefined> {
  const [row] = await db.query<ExecutionRow>(
    `update executions set run_token = $2, resumes = resumes + 1, updated_at = now()
      where id = $1 and status = 'running' and resumes < $4 and ${RESUMABLE} returning *`,
    [id, token, RESUMABLE_KINDS, MAX_RESUMES],
  );
  return row;
}

/**
 * The sweep's resume of a `running` run no worker holds: back to `queued` with its steps, its cost
 * and where it began kept (the next worker replays them), fenced by the token the sweep saw.
 */
export async function queueToResume(
  db: Queryable,
  id: string,
  seenToken: string | null,
): Promise<ExecutionRow | undefined> {
  const [row] = await db.query<ExecutionRow>(
    `update executions set status = 'queued', run_token = null, resumes = resumes + 1, updated_at = now()
      where id = $1 and status = 'running' and run_token is not distinct from $2 and resumes < $4 and ${RESUMABLE}
      returning *`,
    [id, seenToken, RESUMABLE_KINDS, MAX_RESUMES],
  );
  return row;
}
