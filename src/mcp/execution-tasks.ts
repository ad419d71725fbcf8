import { Injectable } from '@nestjs/common';
import type {
  McpInputRound,
  McpTaskCaller,
  McpTaskChange,
  McpTaskCreation,
  McpTaskRef,
  McpTaskSource,
  McpTaskState,
} from '@kobana/nest-mcp';
import { type KaduPrincipal, memberKey } from '../auth/kadu-principal.js';
import { ApiError } from '../common/api-error.js';
import { type ExecutionProgress, ExecutionProgressService } from '../executions/execution-progress.js';
import type { OpenQuestion, QuestionReply } from '../executions/execution-questions.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { executionTaskState } from './execution-task-state.js';

const TOOL = 'kadu_tasks_run';

/**
 * Kadu's executions as MCP tasks (the Tasks extension, through libs/mcp): `kadu_tasks_run` answers
 * a task whose id is the execution's; `tasks/get` reads the execution (any replica), `tasks/update`
 * answers its questions as `kadu_executions_continue` does, and `tasks/cancel` cancels it as
 * `kadu_executions_cancel` does. A thin adapter: the executions domain reads and changes the
 * execution (scoped to the caller's organisation); libs/mcp also binds the task id to the member
 * who ran it. Its changes are published by src/mcp/execution-events.ts through `changeOf`.
 */
@Injectable()
export class ExecutionTasks implements McpTaskSource {
  constructor(
    private readonly progress: ExecutionProgressService,
    private readonly executions: ExecutionsService,
  ) {}

  async create(creation: McpTaskCreation): Promise<McpTaskState> {
    const id = (creation.value as { data?: { id?: string } }).data?.id;
    const state = id ? await this.get({ tool: creation.tool, id }, creation.caller) : undefined;
    // The execution row is committed before kadu_tasks_run returns: it is durable already.
    if (!state) throw new Error(`${creation.tool} returned no execution`);
    return state;
  }

  async get(ref: McpTaskRef, caller: McpTaskCaller): Promise<McpTaskState | undefined> {
    const row = await this.load(ref, caller);
    return row && this.state(row);
  }

  /**
   * Answers the execution's questions. The person answered the form in their client, so, unlike
   * `kadu_executions_continue` called by a model, no second confirmation is asked.
   */
  async update(ref: McpTaskRef, caller: McpTaskCaller, inputs: McpInputRound, keys: readonly string[]): Promise<void> {
    const row = await this.load(ref, caller);
    if (!row) return;
    const questions = new Map(this.progress.questions(row).map((q) => [q.key, q]));
    const replies: Array<readonly [OpenQuestion, QuestionReply]> = [];
    for (const key of keys) {
      const question = questions.get(key);
      const answer = question && inputs.elicitation(key, question.schema);
      if (question && answer) replies.push([question, answer]);
    }
    await this.progress.reply(caller.principal as KaduPrincipal, row, replies);
  }

  /**
   * Cancels at once, without the confirmation `kadu_executions_cancel` asks for: `tasks/cancel` is
   * the client's own stop control (a person pressing stop on a task they follow), not a tool a model
   * decides to call, and it has no way to carry a question. Cancelling only stops further spending.
   */
  async cancel(ref: McpTaskRef, caller: McpTaskCaller): Promise<void> {
    try {
      // The cancel is announced by the service (queued, waiting) or by the worker (running).
      await this.executions.cancel(caller.principal as KaduPrincipal, ref.id);
    } catch (error) {
      // It finished meanwhile: cancellation is cooperative, the ack stands (tasks.md §Task Cancellation).
      if (!(error instanceof ApiError && error.getStatus() === 409)) throw error;
    }
  }

  /** The task change of an execution that changed: addressed to the member who ran it, heard by `audience` only. */
  async changeOf(executionId: string, audience: string): Promise<McpTaskChange | undefined> {
    const row = await this.progress.withOwner(executionId);
    if (!row) return undefined;
    return {
      ref: { tool: TOOL, id: row.id },
      principalKey: memberKey(audience, row.owner),
      state: this.state(row),
      audience,
    };
  }

  private async load(ref: McpTaskRef, caller: McpTaskCaller): Promise<ExecutionProgress | undefined> {
    if (ref.tool !== TOOL || !caller.principal) return undefined;
    return this.progress.of(caller.principal as KaduPrincipal, ref.id);
  }

  private state(row: ExecutionProgress): McpTaskState {
    return executionTaskState(row, this.progress.questions(row));
  }
}
