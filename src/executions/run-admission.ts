import { ApiError } from '../common/api-error.js';
import { isId } from '../common/ids.js';
import type { Queryable } from '../db/database.js';
import type { OrgContext } from '../orgs/org-context.service.js';
import type { TaskRow } from '../tasks/task.view.js';

/** What a run (or a continued run) must pass before it is queued: launch policy, input files, plan. */

export function checkLaunchPolicy(task: TaskRow, ctx: OrgContext): void {
  const { roles, member_ids: memberIds } = task.launch_policy;
  if (!roles.length && !memberIds.length) return;
  if (roles.includes(ctx.principal.role) || memberIds.includes(ctx.memberId)) return;
  throw new ApiError(403, 'launch_not_allowed', 'Launch not allowed', "The task's launch policy does not include you");
}

export async function checkInputFile(tx: Queryable, orgId: string, fileId: string): Promise<void> {
  const [file] = isId(fileId)
    ? await tx.query<{ status: string }>(
        'select status from files where id = $1 and org_id = $2 and deleted_at is null',
        [fileId, orgId],
      )
    : [];
  if (!file) throw new ApiError(404, 'not_found', 'Not found', `No such file: ${fileId}`, 'input_file_ids');
  if (file.status !== 'ready')
    throw new ApiError(
      422,
      'file_not_ready',
      'File not ready',
      `File ${fileId} is ${file.status}; confirm it first`,
      'input_file_ids',
    );
}

/** Plan budget (this month's spend plus what this run may spend) and concurrent executions. */
export async function checkPlan(tx: Queryable, ctx: OrgContext, mayCost: number): Promise<void> {
  await tx.query('select id from organizations where id = $1 for update', [ctx.orgId]);
  const [usage] = await tx.query<{ spent: number; active: number }>(
    `select coalesce(sum(cost_spent) filter (where created_at >= date_trunc('month', now())), 0)::int as spent,
            count(*) filter (where status in ('queued', 'running'))::int as active
       from executions where org_id = $1`,
    [ctx.orgId],
  );
  if (usage!.spent + mayCost > ctx.plan.monthly_budget) {
    throw new ApiError(
      402,
      'plan_limit_exceeded',
      'Plan limit exceeded',
      `This month's budget is ${ctx.plan.monthly_budget} units; ${usage!.spent} are spent and this run may cost ${mayCost}`,
    );
  }
  if (usage!.active >= ctx.plan.max_concurrent_executions) {
    throw new ApiError(
      429,
      'concurrency_limit',
      'Concurrency limit',
      `At most ${ctx.plan.max_concurrent_executions} executions may be queued or running at once; retry in a few seconds`,
    ).withHeader('Retry-After', '5');
  }
}
