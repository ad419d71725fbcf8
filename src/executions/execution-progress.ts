import { Inject, Injectable } from '@nestjs/common';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { isId } from '../common/ids.js';
import { DATABASE, type Database } from '../db/database.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import type { ContinueExecutionDto } from './execution.dto.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { applyReplies, type OpenQuestion, openQuestions, type QuestionReply } from './execution-questions.js';
import type { ExecutionRow } from './execution.view.js';
import { ExecutionsService } from './executions.service.js';

/** An execution with what a follower sees of its progress: its task's kind, its steps, its question rounds. */
export interface ExecutionProgress extends ExecutionRow {
  kind: string;
  step_count: number;
  last_step: string | null;
  /** How many times the execution asked a question: makes question keys unique per execution. */
  rounds: number;
}

const PROGRESS_COLUMNS = `e.*, t.kind,
        (select count(*) from execution_steps s where s.execution_id = e.id)::int as step_count,
        (select s.summary from execution_steps s where s.execution_id = e.id order by s.seq desc limit 1) as last_step,
        (select count(*) from execution_steps s where s.execution_id = e.id and s.kind = 'question')::int as rounds`;

/**
 * An execution followed as it runs (the MCP task of kadu_tasks_run, src/mcp/execution-tasks.ts):
 * its progress, read from the database so any replica answers, and answers to its questions given
 * a part at a time — the same continue as kadu_executions_continue once the answer is whole.
 */
@Injectable()
export class ExecutionProgressService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly executions: ExecutionsService,
    private readonly notifier: ExecutionNotifier,
  ) {}

  /** The caller's organisation's execution, or undefined (an id that is not one, or another org's). */
  async of(principal: KaduPrincipal, executionId: string): Promise<ExecutionProgress | undefined> {
    if (!isId(executionId)) return undefined;
    const ctx = await this.orgs.of(principal);
    const [row] = await this.db.query<ExecutionProgress>(
      `select ${PROGRESS_COLUMNS} from executions e join tasks t on t.id = e.task_id where e.id = $1 and e.org_id = $2`,
      [executionId, ctx.orgId],
    );
    return row;
  }

  /** The execution and the subject of the member who ran it, for a notice addressed to them. */
  async withOwner(executionId: string): Promise<(ExecutionProgress & { owner: string }) | undefined> {
    const [row] = await this.db.query<ExecutionProgress & { owner: string }>(
      `select ${PROGRESS_COLUMNS}, m.email as owner
         from executions e join tasks t on t.id = e.task_id join members m on m.id = e.requested_by
        where e.id = $1`,
      [executionId],
    );
    return row;
  }

  /** The questions it still asks (none unless it awaits input). */
  questions(row: ExecutionProgress): OpenQuestion[] {
    return row.status === 'awaiting_input' ? openQuestions(row, row.rounds) : [];
  }

  /**
   * Answers some of its questions. Answers to some lines are kept on the execution; a whole answer
   * continues it through ExecutionsService.continue (plan budget, queue and state checks included).
   */
  async reply(
    principal: KaduPrincipal,
    row: ExecutionProgress,
    replies: ReadonlyArray<readonly [OpenQuestion, QuestionReply]>,
  ): Promise<void> {
    if (row.status !== 'awaiting_input') return;
    const outcome = applyReplies(row, replies);
    if (outcome.kind === 'complete') {
      await this.executions.continue(principal, row.id, { answers: outcome.answers } as ContinueExecutionDto);
      return;
    }
    const [updated] = await this.db.query<ExecutionRow>(
      `update executions set answers = $2::jsonb, updated_at = now() where id = $1 and status = 'awaiting_input' returning *`,
      [row.id, JSON.stringify(outcome.answers)],
    );
    // Fewer questions outstanding: the execution (and whoever follows it) changed.
    if (updated) await this.notifier.changed(updated);
  }
}
