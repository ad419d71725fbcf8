import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  describeValue,
  InputRequests,
  type McpContent,
  type McpInputRound,
  type McpTaskCaller,
  type McpTaskCreation,
  McpTaskEvents,
  type McpTaskRef,
  type McpTaskSource,
  type McpTaskState,
  stringField,
} from '@kobana/nest-mcp';
import { type KaduPrincipal, memberKey } from '../auth/kadu-principal.js';
import { executionLink } from '../executions/execution-uri.js';
import { fileUri } from '../files/file-uri.js';
import { ApiError } from '../common/api-error.js';
import { isId } from '../common/ids.js';
import { DATABASE, type Database } from '../db/database.js';
import type { ContinueExecutionDto } from '../executions/execution.dto.js';
import { ExecutionNotifier } from '../executions/execution-notifier.js';
import { type ExecutionRow, executionView } from '../executions/execution.view.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { OrgContextService } from '../orgs/org-context.service.js';

/** How often to poll, by what the execution is doing: queued work waits on the queue, a question on a person. */
const POLL_MS: Record<string, number> = { echo: 500, csv_summary: 1000, reconcile: 2000 };
const POLL_QUEUED_MS = 2000;
const POLL_WAITING_MS = 5000;
const NONE = 'none';
/** An execution (`e`) with what its task state shows: kind, steps, last step, question rounds. */
const TASK_COLUMNS = `e.*, t.kind,
        (select count(*) from execution_steps s where s.execution_id = e.id)::int as step_count,
        (select s.summary from execution_steps s where s.execution_id = e.id order by s.seq desc limit 1) as last_step,
        (select count(*) from execution_steps s where s.execution_id = e.id and s.kind = 'question')::int as rounds`;

interface TaskRow extends ExecutionRow {
  kind: string;
  step_count: number;
  last_step: string | null;
  /** How many times the execution asked a question: makes input request keys unique per task. */
  rounds: number;
}

interface Choice {
  bank_line: number;
  date?: string;
  description?: string;
  amount?: number;
  candidates: string[];
}

/** One outstanding input request of an awaiting execution, and how its answer is read. */
interface Ask {
  key: string;
  request: ReturnType<typeof InputRequests.form>;
  schema: Record<string, unknown>;
  line?: number;
}

/**
 * Kadu's executions as MCP tasks (the Tasks extension, through libs/mcp): `kadu_tasks_run` answers
 * a task whose id maps to the execution; `tasks/get` reads the execution from the database (any
 * replica), `tasks/update` answers its question exactly as `kadu_executions_continue` does, and
 * `tasks/cancel` cancels it as `kadu_executions_cancel` does. Every read is scoped to the caller's
 * organisation; libs/mcp also binds the task id to the member who ran it.
 *
 * Every change of an execution (the worker's steps and status, a question, the end, the sweeper,
 * a hand-back, an answer or a cancel) is reported as the task's new state to McpTaskEvents, which
 * publishes `notifications/tasks` for the listen streams following the task, on every replica.
 */
@Injectable()
export class ExecutionTasks implements McpTaskSource, OnModuleInit {
  private readonly logger = new Logger('ExecutionTasks');

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly executions: ExecutionsService,
    private readonly notifier: ExecutionNotifier,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    this.notifier.onChanged((execution, audience) => this.statusChanged(execution.id, audience));
  }

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
   * Answers the execution's question. The person answered the form in their client, so, unlike
   * `kadu_executions_continue` called by a model, no second confirmation is asked. Answers to some
   * of the lines are kept on the execution; once every line is answered it continues, through the
   * same method as `kadu_executions_continue` (plan budget, queue, state checks included).
   */
  async update(ref: McpTaskRef, caller: McpTaskCaller, inputs: McpInputRound, keys: readonly string[]): Promise<void> {
    const row = await this.load(ref, caller);
    if (!row || row.status !== 'awaiting_input') return;
    const asks = new Map(this.asks(row).map((ask) => [ask.key, ask]));
    const answers = { ...(row.answers ?? {}) };
    const decisions: Record<string, string> = { ...decisionsOf(row) };
    for (const key of keys) {
      const ask = asks.get(key);
      const answer = ask && inputs.elicitation(key, ask.schema);
      if (!ask || !answer || answer.action === 'cancel') continue;
      if (ask.line !== undefined) {
        // Declining a line leaves it unmatched (reconcile reads an unknown ledger id as "none of them").
        // A ledger id that is not a string is no ledger line: "none of them" too (issue 34: never coerced).
        const ledgerId = answer.action === 'accept' ? stringField(answer.content, 'ledger_id') : undefined;
        decisions[String(ask.line)] = ledgerId ?? NONE;
      } else if (answer.action === 'accept') {
        const parsed = parseObject(answer.content?.answers);
        if (parsed) return this.continue(caller, row, parsed);
      }
    }
    const merged = { ...answers, decisions };
    const outstanding = this.choices(row).filter((c) => decisions[String(c.bank_line)] === undefined);
    if (this.choices(row).length && outstanding.length === 0) return this.continue(caller, row, merged);
    const [updated] = await this.db.query<ExecutionRow>(
      `update executions set answers = $2::jsonb, updated_at = now() where id = $1 and status = 'awaiting_input' returning *`,
      [row.id, JSON.stringify(merged)],
    );
    // Fewer questions outstanding: the execution and its task changed.
    if (updated) await this.notifier.changed(updated);
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

  private async continue(caller: McpTaskCaller, row: TaskRow, answers: Record<string, unknown>): Promise<void> {
    await this.executions.continue(caller.principal as KaduPrincipal, row.id, { answers } as ContinueExecutionDto);
  }

  /**
   * The execution changed (on this process): its task's state goes to McpTaskEvents under the
   * member who ran it (the task id is bound to them) and heard by their organisation only. A
   * failure here never fails the change; polling `tasks/get` still shows it.
   */
  private async statusChanged(id: string, audience: string): Promise<void> {
    try {
      const [row] = await this.db.query<TaskRow & { owner: string }>(
        `select ${TASK_COLUMNS}, m.email as owner
           from executions e join tasks t on t.id = e.task_id join members m on m.id = e.requested_by
          where e.id = $1`,
        [id],
      );
      if (!row) return;
      this.moduleRef.get(McpTaskEvents, { strict: false }).changed({
        ref: { tool: 'kadu_tasks_run', id: row.id },
        principalKey: memberKey(audience, row.owner),
        state: this.state(row),
        audience,
      });
    } catch (error) {
      this.logger.warn(`task status of ${id} not published: ${describeValue(error)}`);
    }
  }

  private async load(ref: McpTaskRef, caller: McpTaskCaller): Promise<TaskRow | undefined> {
    if (ref.tool !== 'kadu_tasks_run' || !isId(ref.id) || !caller.principal) return undefined;
    const ctx = await this.orgs.of(caller.principal as KaduPrincipal);
    const [row] = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from executions e join tasks t on t.id = e.task_id where e.id = $1 and e.org_id = $2`,
      [ref.id, ctx.orgId],
    );
    return row;
  }

  private state(row: TaskRow): McpTaskState {
    const base = {
      id: row.id,
      statusMessage: this.statusMessage(row),
      createdAt: row.created_at,
      lastUpdatedAt: row.updated_at,
      // Kadu keeps executions until the organisation is deleted: no expiry to announce.
      ttlMs: null,
    };
    switch (row.status) {
      case 'queued':
        return { ...base, status: 'working', pollIntervalMs: POLL_QUEUED_MS };
      case 'running':
        return { ...base, status: 'working', pollIntervalMs: POLL_MS[row.kind] ?? 1000 };
      case 'awaiting_input':
        return {
          ...base,
          status: 'input_required',
          pollIntervalMs: POLL_WAITING_MS,
          inputRequests: Object.fromEntries(this.asks(row).map((a) => [a.key, a.request])),
        };
      case 'canceled':
        return { ...base, status: 'cancelled' };
      default:
        // A failed execution is a business outcome, not a JSON-RPC error: completed with isError.
        return { ...base, status: 'completed', result: this.result(row) };
    }
  }

  /**
   * What kadu_executions_get shows for it, with the execution and its output files as resource
   * links; a succeeded one also as structuredContent (kadu_tasks_run lists an outputSchema, issue 31).
   */
  private result(row: TaskRow): Record<string, unknown> {
    const answer = { data: executionView(row) };
    const content: McpContent[] = [
      { type: 'text', text: JSON.stringify(answer) },
      executionLink(row.id),
      ...row.output_file_ids.map((id): McpContent => ({
        type: 'resource_link',
        uri: fileUri(id),
        name: 'output_file',
        title: `Output file ${id}`,
      })),
    ];
    return row.status === 'failed' ? { content, isError: true } : { content, structuredContent: answer };
  }

  private statusMessage(row: TaskRow): string {
    const cost = `${row.cost_spent} of ${row.cost_cap} cost units spent`;
    const steps = `${row.step_count} step${row.step_count === 1 ? '' : 's'}`;
    const last = row.last_step ? ` Last step: ${row.last_step}.` : '';
    switch (row.status) {
      case 'queued':
        return `Queued; ${steps} so far, ${cost}.${last}`;
      case 'running':
        return `Running; ${steps} so far, ${cost}.${last}`;
      case 'awaiting_input':
        return `Waiting for your answer; ${steps}, ${cost}.${last}`;
      case 'succeeded':
        return `Succeeded after ${steps}; ${cost}.`;
      case 'failed':
        return `Failed after ${steps}: ${row.error?.message ?? 'unknown error'}; ${cost}.`;
      default:
        return `Cancelled after ${steps}; ${cost}.`;
    }
  }

  private choices(row: TaskRow): Choice[] {
    const choices = (row.question as { choices?: unknown } | null)?.choices;
    if (!Array.isArray(choices)) return [];
    return choices.filter(
      (c): c is Choice =>
        typeof c === 'object' &&
        c !== null &&
        Number.isInteger((c as Choice).bank_line) &&
        Array.isArray((c as Choice).candidates),
    );
  }

  /**
   * One form per ambiguous line still unanswered (reconcile), else one form for the whole answer.
   * Keys carry the question round, so no key is reused within the task (tasks.md §Task Update Requests).
   */
  private asks(row: TaskRow): Ask[] {
    const decided = decisionsOf(row);
    const open = this.choices(row).filter((c) => decided[String(c.bank_line)] === undefined);
    if (open.length) {
      return open.map((c) => {
        const schema = {
          type: 'object',
          properties: {
            ledger_id: {
              type: 'string',
              title: 'Ledger entry',
              enum: [...c.candidates, NONE],
              description: `"${NONE}" leaves the line unmatched`,
            },
          },
          required: ['ledger_id'],
        };
        const line = [c.date, c.description, c.amount].filter((v) => v !== undefined && v !== '').join(', ');
        const message = `Bank line ${c.bank_line}${line ? ` (${line})` : ''} matches several ledger entries: ${c.candidates.join(', ')}. Which one is it?`;
        return {
          key: `r${row.rounds}-line-${c.bank_line}`,
          request: InputRequests.form(message, schema),
          schema,
          line: c.bank_line,
        };
      });
    }
    const question = row.question as { text?: string; answer_format?: string } | null;
    const schema = {
      type: 'object',
      properties: {
        answers: {
          type: 'string',
          title: 'Answer',
          description: `A JSON object${question?.answer_format ? `: ${question.answer_format}` : ''}`,
        },
      },
      required: ['answers'],
    };
    return [
      {
        key: `r${row.rounds}-answers`,
        request: InputRequests.form(question?.text ?? 'The execution needs an answer.', schema),
        schema,
      },
    ];
  }
}

function decisionsOf(row: ExecutionRow): Record<string, string> {
  const decisions = (row.answers as { decisions?: unknown } | null)?.decisions;
  if (!decisions || typeof decisions !== 'object') return {};
  return Object.fromEntries(Object.entries(decisions).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
