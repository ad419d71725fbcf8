import {
  HttpException,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { newId } from '../common/ids.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { FILE_STORE, type FileStore } from '../files/file-store.js';
import { FilesService } from '../files/files.service.js';
import { recordExecutionOutcome } from '../telemetry/kadu-metrics.js';
import { WebhookEvents } from '../webhooks/webhook-events.js';
import { EXECUTION_QUEUE, type ExecutionQueue } from './execution-queue.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { ExecutionSweeper } from './execution-sweeper.js';
import { takeOver } from './execution-resume.js';
import { Canceled, CostCapReached, HandedBack, NoLongerHeld, runContext } from './execution-run-context.js';
import { type ExecutionRow } from './execution.view.js';
import { AgentError } from './kinds/agent.js';
import { AGENTS } from './kinds/registry.js';
import { describeError } from '@kobana/nest-mcp';

/**
 * The worker: takes queued executions, runs their task kind step by step (recording steps and
 * cost, stopping at the cost cap, honouring cancel), and announces the outcome to the task's
 * webhooks. Work whose worker was lost is failed explicitly — never left `running` forever: the
 * sweep (at start, then periodically) takes up again (resumable kinds) or fails what no live worker
 * holds, and the queue hands out again the work of a worker that lost its hold, which is then taken
 * over here (resumable kinds: the recorded steps replayed, execution-run-context.ts) or failed.
 */
@Injectable()
export class ExecutionRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Executions');
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EXECUTION_QUEUE) private readonly queue: ExecutionQueue,
    private readonly files: FilesService,
    @Inject(FILE_STORE) private readonly store: FileStore,
    private readonly events: WebhookEvents,
    private readonly sweeper: ExecutionSweeper,
    private readonly notifier: ExecutionNotifier,
  ) {}

  /** Set by a graceful shutdown: no new step starts; running executions are handed back. */
  private stopping = false;

  async onApplicationBootstrap(): Promise<void> {
    // Before taking work: what a stopped process left behind is failed or queued again.
    await this.sweeper.sweep();
    // Concurrency 0: a replica that only queues; the other replicas' workers run its executions.
    if (this.config.executionConcurrency > 0) {
      await this.queue.start((run) => this.process(run.executionId, run.redelivered), this.config.executionConcurrency);
    }
    this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.queue.stop();
  }

  async process(executionId: string, redelivered = false): Promise<void> {
    const token = newId();
    // A run that begins (run_start_seq null) starts from the steps recorded so far and no output
    // files; one queued to resume keeps both (execution-resume.ts).
    const [taken] = await this.db.query<ExecutionRow>(
      `update executions set status = 'running', started_at = coalesce(started_at, now()), run_token = $2,
          run_start_seq = coalesce(run_start_seq, (select coalesce(max(seq), 0) from execution_steps where execution_id = $1)),
          output_file_ids = case when run_start_seq is null then '[]'::jsonb else output_file_ids end,
          updated_at = now()
        where id = $1 and status = 'queued' and not cancel_requested returning *`,
      [executionId, token],
    );
    // Handed out again after its worker lost its hold mid-run: taken over, or failed explicitly (docs/kadu.md, "Executions").
    const execution = taken ?? (redelivered ? await takeOver(this.db, executionId, token) : undefined);
    if (!execution) {
      if (redelivered && (await this.sweeper.failLost(executionId)))
        this.logger.warn(`execution ${executionId}: its worker was lost; failed (worker_lost)`);
      return;
    }
    if (!taken) this.logger.warn(`execution ${executionId}: its worker lost it; resumed from its last recorded step`);
    await this.notifier.changed(execution);
    const [task] = await this.db.query<{ kind: string }>('select kind from tasks where id = $1', [execution.task_id]);
    const agent = task ? AGENTS[task.kind] : undefined;
    try {
      if (!agent) throw new AgentError('unknown_kind', `No agent for task kind ${task?.kind ?? '(missing task)'}`);
      const outcome = await agent.run(
        await runContext(
          {
            db: this.db,
            config: this.config,
            files: this.files,
            store: this.store,
            notifier: this.notifier,
            stopping: () => this.stopping,
          },
          execution,
        ),
      );
      if (outcome.kind === 'succeeded') {
        await this.finish(execution, 'succeeded', {
          output: JSON.stringify(outcome.output ?? null),
          output_file_ids: JSON.stringify(outcome.outputFileIds ?? []),
        });
      } else {
        await this.finish(execution, 'awaiting_input', { question: JSON.stringify(outcome.question) }, false);
      }
    } catch (error) {
      if (error instanceof HandedBack) {
        await this.handBack(execution, error.stepsBefore);
      } else if (error instanceof NoLongerHeld) {
        this.logger.warn(
          `execution ${execution.id} was taken over after this worker lost it; its outcome is not written`,
        );
      } else if (error instanceof Canceled) {
        await this.finish(execution, 'canceled', {});
      } else if (error instanceof CostCapReached) {
        await this.fail(
          execution,
          'cost_cap_reached',
          `The execution reached its cost cap of ${execution.cost_cap} units`,
        );
      } else if (error instanceof AgentError) {
        await this.fail(execution, error.code, error.message);
      } else if (error instanceof HttpException && error.getStatus() === 503 && agent?.resumable) {
        // The database or file store went away mid-run: the run stays `running`, this worker lets go
        // of it, and the sweep queues it to resume once it can (execution-resume.ts).
        this.logger.warn(
          `execution ${execution.id} interrupted: ${error.message}; it resumes once the service is back`,
        );
      } else if (error instanceof HttpException && error.getStatus() === 503) {
        // A kind that cannot resume fails, naming the outage. If even this cannot be written, the
        // execution stays `running` and the sweep fails it once the database is back.
        this.logger.warn(`execution ${execution.id} stopped: ${error.message}`);
        await this.fail(
          execution,
          'dependency_unavailable',
          'A service the execution needs could not be reached; run the task again',
        );
      } else {
        this.logger.error(`execution ${execution.id} failed: ${describeError(error)}`);
        await this.fail(execution, 'internal_error', 'The execution failed unexpectedly');
      }
    }
  }

  /**
   * Back to `queued` as it was when this worker took it (its steps and cost of this run undone, so
   * the next run does not count them twice). Queuing it again here is best effort (BullMQ keeps
   * one job per execution, and this one is still active): the sweep of a live replica, or this
   * process's next start, queues every `queued` execution that no queue holds.
   */
  private async handBack(execution: ExecutionRow, stepsBefore: number): Promise<void> {
    const [row] = await this.db.transaction(async (tx) => {
      const rows = await tx.query<ExecutionRow>(
        `update executions set status = 'queued', cost_spent = $2, run_token = null, updated_at = now()
          where id = $1 and status = 'running' and run_token = $3 returning *`,
        [execution.id, execution.cost_spent, execution.run_token],
      );
      if (rows.length)
        await tx.query('delete from execution_steps where execution_id = $1 and seq > $2', [execution.id, stepsBefore]);
      return rows;
    });
    if (!row) return;
    await this.notifier.changed(row, { steps: stepsBefore, stepsChanged: true });
    this.logger.log(`execution ${execution.id}: handed back to the queue (shutting down)`);
    await this.queue.enqueue(execution.id).catch(() => undefined);
  }

  private async fail(execution: ExecutionRow, code: string, message: string): Promise<void> {
    await this.finish(execution, 'failed', { error: JSON.stringify({ code, message }) });
  }

  /** The run's outcome, written only while this worker's run token still holds it. */
  private async finish(
    execution: ExecutionRow,
    status: string,
    fields: Record<string, string>,
    final = true,
  ): Promise<void> {
    const entries = Object.entries(fields);
    const sets = entries.map(([k], i) => `${k} = $${i + 4}::jsonb`);
    const [row] = await this.db.query<ExecutionRow>(
      `update executions set status = $2, ${[...sets, 'updated_at = now()', ...(final ? ['finished_at = now()'] : [])].join(', ')}
        where id = $1 and status = 'running' and run_token = $3 returning *`,
      [execution.id, status, execution.run_token, ...entries.map(([, v]) => v)],
    );
    if (row) recordExecutionOutcome(status, (row.error as { code?: string } | null)?.code);
    if (row) await this.notifier.changed(row);
    if (row && status !== 'canceled') await this.events.emit(row, `execution.${status}`);
  }
}
