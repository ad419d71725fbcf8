import { setTimeout as sleep } from 'node:timers/promises';
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
import { FILE_STORE, FileGone, type FileStore } from '../files/file-store.js';
import { FilesService } from '../files/files.service.js';
import type { FileRow } from '../files/file.view.js';
import { recordExecutionOutcome } from '../telemetry/kadu-metrics.js';
import { WebhookEvents } from '../webhooks/webhook-events.js';
import { EXECUTION_QUEUE, type ExecutionQueue } from './execution-queue.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { ExecutionSweeper } from './execution-sweeper.js';
import { type ExecutionRow } from './execution.view.js';
import { type Agent, type AgentContext, AgentError } from './kinds/agent.js';
import { CsvSummaryAgent } from './kinds/csv-summary.agent.js';
import { EchoAgent } from './kinds/echo.agent.js';
import { ReconcileAgent } from './kinds/reconcile.agent.js';
import { describeError } from '@kobana/nest-mcp';

class CostCapReached extends Error {}
class Canceled extends Error {}
/** The execution is no longer this worker's (failed as lost and taken over): stop without writing. */
class NoLongerHeld extends Error {}
/** The process is stopping: the execution goes back to the queue after the step in progress. */
class HandedBack extends Error {
  /** The last step recorded before this run: what the run added after it is undone. */
  constructor(readonly stepsBefore: number) {
    super('handed back');
  }
}

/**
 * The worker: takes queued executions, runs their task kind step by step (recording steps and
 * cost, stopping at the cost cap, honouring cancel), and announces the outcome to the task's
 * webhooks. Work whose worker was lost is failed explicitly — never left `running` forever: the
 * sweep (at start, then periodically) fails what no live worker holds, and the queue hands out again
 * the work of a worker that died, which is then failed here.
 */
@Injectable()
export class ExecutionRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Executions');
  private readonly agents: Record<string, Agent> = {
    echo: new EchoAgent(),
    csv_summary: new CsvSummaryAgent(),
    reconcile: new ReconcileAgent(),
  };

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
    const [execution] = await this.db.query<ExecutionRow>(
      `update executions set status = 'running', started_at = coalesce(started_at, now()), updated_at = now()
        where id = $1 and status = 'queued' and not cancel_requested returning *`,
      [executionId],
    );
    if (!execution) {
      // Handed out again after its worker died mid-run: fail it explicitly (docs/kadu.md, "Executions").
      if (redelivered && (await this.sweeper.failLost(executionId)))
        this.logger.warn(`execution ${executionId}: its worker was lost; failed (worker_lost)`);
      return;
    }
    await this.notifier.changed(execution);
    const [task] = await this.db.query<{ kind: string }>('select kind from tasks where id = $1', [execution.task_id]);
    const agent = task ? this.agents[task.kind] : undefined;
    try {
      if (!agent) throw new AgentError('unknown_kind', `No agent for task kind ${task?.kind ?? '(missing task)'}`);
      const outcome = await agent.run(await this.contextFor(execution));
      if (outcome.kind === 'succeeded') {
        await this.finish(execution.id, 'succeeded', {
          output: JSON.stringify(outcome.output ?? null),
          output_file_ids: JSON.stringify(outcome.outputFileIds ?? []),
        });
      } else {
        await this.finish(execution.id, 'awaiting_input', { question: JSON.stringify(outcome.question) }, false);
      }
    } catch (error) {
      if (error instanceof HandedBack) {
        await this.handBack(execution, error.stepsBefore);
      } else if (error instanceof NoLongerHeld) {
        this.logger.warn(
          `execution ${execution.id} was taken over after this worker lost it; its outcome is not written`,
        );
      } else if (error instanceof Canceled) {
        await this.finish(execution.id, 'canceled', {});
      } else if (error instanceof CostCapReached) {
        await this.fail(
          execution.id,
          'cost_cap_reached',
          `The execution reached its cost cap of ${execution.cost_cap} units`,
        );
      } else if (error instanceof AgentError) {
        await this.fail(execution.id, error.code, error.message);
      } else if (error instanceof HttpException && error.getStatus() === 503) {
        // The database, queue or file store went away mid-run. If even this cannot be written, the
        // execution stays `running` and the sweep fails it once the database is back.
        this.logger.warn(`execution ${execution.id} stopped: ${error.message}`);
        await this.fail(
          execution.id,
          'dependency_unavailable',
          'A service the execution needs could not be reached; run the task again',
        );
      } else {
        this.logger.error(`execution ${execution.id} failed: ${describeError(error)}`);
        await this.fail(execution.id, 'internal_error', 'The execution failed unexpectedly');
      }
    }
  }

  private async contextFor(execution: ExecutionRow): Promise<AgentContext> {
    const [{ seq }] = (await this.db.query<{ seq: number }>(
      'select coalesce(max(seq), 0)::int as seq from execution_steps where execution_id = $1',
      [execution.id],
    )) as [{ seq: number }];
    let lastSeq = seq;
    let spent = execution.cost_spent;
    const record = async (kind: string, summary: string, _cost: number): Promise<void> => {
      lastSeq++;
      await this.db.transaction(async (tx) => {
        await tx.query(
          'insert into execution_steps (id, org_id, execution_id, seq, kind, summary) values ($1, $2, $3, $4, $5, $6)',
          [newId(), execution.org_id, execution.id, lastSeq, kind, summary],
        );
        await tx.query('update executions set cost_spent = $2, updated_at = now() where id = $1', [
          execution.id,
          spent,
        ]);
      });
      await this.notifier.changed(execution, { steps: lastSeq, stepsChanged: true });
    };
    return {
      input: execution.input ?? {},
      inputFileIds: execution.input_file_ids,
      answers: execution.answers,
      step: async (kind, summary, cost) => {
        if (this.stopping) throw new HandedBack(seq);
        if (this.config.stepDelayMs) await sleep(this.config.stepDelayMs);
        const [state] = await this.db.query<{ cancel_requested: boolean; status: string }>(
          'select cancel_requested, status from executions where id = $1',
          [execution.id],
        );
        if (state?.status !== 'running') throw new NoLongerHeld();
        if (state.cancel_requested) throw new Canceled();
        if (spent + cost > execution.cost_cap) {
          await record('cost_cap', `Stopped: this step would spend past the cap of ${execution.cost_cap} units`, 0);
          throw new CostCapReached();
        }
        spent += cost;
        await record(kind, summary, cost);
      },
      readFile: async (fileId) => {
        const [file] = await this.db.query<FileRow>(
          `select * from files where id = $1 and org_id = $2 and deleted_at is null and status = 'ready'`,
          [fileId, execution.org_id],
        );
        if (!file) throw new AgentError('input_file_not_found', `Input file ${fileId} is missing or not ready`);
        try {
          return {
            name: file.name,
            contentType: file.content_type,
            bytes: await this.store.read(execution.org_id, file.id),
          };
        } catch (error) {
          if (error instanceof FileGone)
            throw new AgentError('input_file_unavailable', `The bytes of input file ${fileId} are no longer available`);
          throw error;
        }
      },
      writeFile: async (name, contentType, bytes) =>
        (await this.files.createOutput(execution.org_id, name, contentType, bytes)).id,
    };
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
        `update executions set status = 'queued', cost_spent = $2, updated_at = now() where id = $1 and status = 'running' returning *`,
        [execution.id, execution.cost_spent],
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

  private async fail(id: string, code: string, message: string): Promise<void> {
    await this.finish(id, 'failed', { error: JSON.stringify({ code, message }) });
  }

  private async finish(id: string, status: string, fields: Record<string, string>, final = true): Promise<void> {
    const entries = Object.entries(fields);
    const sets = entries.map(([k], i) => `${k} = $${i + 3}::jsonb`);
    const [row] = await this.db.query<ExecutionRow>(
      `update executions set status = $2, ${[...sets, 'updated_at = now()', ...(final ? ['finished_at = now()'] : [])].join(', ')}
        where id = $1 and status = 'running' returning *`,
      [id, status, ...entries.map(([, v]) => v)],
    );
    if (row) recordExecutionOutcome(status, (row.error as { code?: string } | null)?.code);
    if (row) await this.notifier.changed(row);
    if (row && status !== 'canceled') await this.events.emit(row, `execution.${status}`);
  }
}
