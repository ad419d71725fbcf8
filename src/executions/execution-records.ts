import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error.js';
import { assertId, newId } from '../common/ids.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';
import type { OrgContext } from '../orgs/org-context.service.js';
import type { TaskRow } from '../tasks/task.view.js';
import type { ExecutionRow, stepView } from './execution.view.js';

type StepRow = Parameters<typeof stepView>[0];

/** The executions table as ExecutionsService reads and writes it: one statement per method, scoped by the caller's organisation. */
@Injectable()
export class ExecutionRecords {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  /** A new queued run of `task` by the caller. */
  async insert(
    tx: Queryable,
    ctx: OrgContext,
    task: TaskRow,
    input: Record<string, unknown>,
    fileIds: string[],
  ): Promise<ExecutionRow> {
    const [created] = await tx.query<ExecutionRow>(
      `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, cost_cap, requested_by)
       values ($1, $2, $3, 'queued', $4::jsonb, $5::jsonb, '[]'::jsonb, $6, $7) returning *`,
      [newId(), ctx.orgId, task.id, JSON.stringify(input), JSON.stringify(fileIds), task.cost_cap, ctx.memberId],
    );
    return created!;
  }

  /** Newest first, after the keyset `after`, optionally by status or task; `limit` rows at most. */
  list(
    orgId: string,
    limit: number,
    filter: { status?: string; taskId?: string; after?: string },
  ): Promise<ExecutionRow[]> {
    return this.db.query<ExecutionRow>(
      `select * from executions where org_id = $1
          and ($3::text is null or status = $3) and ($4::text is null or task_id = $4) and ($5::text is null or id < $5)
        order by id desc limit $2`,
      [orgId, limit, filter.status ?? null, filter.taskId ?? null, filter.after ?? null],
    );
  }

  /** Its steps in order (oldest first); their ids grow with seq, so the keyset is the same id. */
  steps(executionId: string, limit: number, after?: string): Promise<StepRow[]> {
    return this.db.query<StepRow>(
      `select * from execution_steps where execution_id = $1 and ($3::text is null or id > $3) order by seq limit $2`,
      [executionId, limit, after ?? null],
    );
  }

  /** Queued again with the answers: a new run from the steps recorded so far, with its own resumes (migration 4). */
  async requeue(tx: Queryable, executionId: string, answers: unknown): Promise<ExecutionRow> {
    const [updated] = await tx.query<ExecutionRow>(
      `update executions set status = 'queued', answers = $2::jsonb, question = null, run_start_seq = null, resumes = 0,
         updated_at = now() where id = $1 returning *`,
      [executionId, JSON.stringify(answers)],
    );
    return updated!;
  }

  /** Asks it to stop: a queued or waiting one is cancelled at once, a running one at its next step. */
  async requestCancel(executionId: string): Promise<ExecutionRow> {
    const [row] = await this.db.query<ExecutionRow>(
      `update executions set cancel_requested = true, updated_at = now(),
              status = case when status in ('queued', 'awaiting_input') then 'canceled' else status end,
              finished_at = case when status in ('queued', 'awaiting_input') then now() else finished_at end
        where id = $1 returning *`,
      [executionId],
    );
    return row!;
  }

  /** The organisation's execution, or 404 (an id that is not one is a 422 first). */
  async load(q: Queryable, orgId: string, executionId: string): Promise<ExecutionRow> {
    const id = assertId(executionId, 'execution');
    const [row] = await q.query<ExecutionRow>('select * from executions where id = $1 and org_id = $2', [id, orgId]);
    if (!row) throw ApiError.notFound('execution');
    return row;
  }
}
