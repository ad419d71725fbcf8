import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { WebhookEvents } from '../webhooks/webhook-events.js';
import { EXECUTION_QUEUE, type ExecutionQueue } from './execution-queue.js';
import type { ExecutionRow } from './execution.view.js';
import { queueToResume } from './execution-resume.js';
import { recordExecutionOutcome } from '../telemetry/kadu-metrics.js';
import { describeValue } from '@kobana/nest-mcp';

const WORKER_LOST = JSON.stringify({
  code: 'worker_lost',
  message:
    'The worker running this execution stopped, or lost its hold while Redis or PostgreSQL was away, and the execution could not be resumed; run the task again',
});

export interface SweepOutcome {
  /** `running` executions no live worker held, of a resumable kind: queued to resume from their last step. */
  resumed: number;
  /** `running` executions no live worker held that cannot resume (kind, resumes used up): failed `worker_lost`. */
  lost: number;
  /** `queued` executions no queue held: queued again. */
  requeued: number;
}

/**
 * Every replica, every KADU_SWEEP_INTERVAL_MS: takes up the `running` executions whose worker no
 * longer holds them (dead replica, lock lost while Redis was away, PostgreSQL away mid-run) —
 * queued to resume from their last recorded step when their kind can (execution-resume.ts, at most
 * MAX_RESUMES times), else failed `worker_lost` — and queues again the `queued` ones
 * that no queue holds (lost to an outage). Safe to run on every replica at once: each change is a
 * conditional update (only one replica wins it) and queuing is idempotent. So an execution is
 * never left `running` or `queued` forever, and no restart is needed to recover.
 */
@Injectable()
export class ExecutionSweeper implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Executions');
  private timer?: NodeJS.Timeout;
  private pass?: Promise<SweepOutcome>;
  private lastWarning = 0;

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EXECUTION_QUEUE) private readonly queue: ExecutionQueue,
    private readonly events: WebhookEvents,
    private readonly notifier: ExecutionNotifier,
  ) {}

  /** Sweeps now and then every interval (the first pass is the runner's, at start). */
  start(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.warn(error));
    }, this.config.sweepIntervalMs);
    this.timer.unref();
  }

  beforeApplicationShutdown(): Promise<unknown> {
    clearInterval(this.timer);
    return this.pass ?? Promise.resolve();
  }

  /** One pass; a pass already under way is joined rather than doubled. Rejects when a dependency is away. */
  sweep(): Promise<SweepOutcome> {
    this.pass ??= this.run().finally(() => (this.pass = undefined));
    return this.pass;
  }

  /**
   * Fails a `running` execution whose worker is gone; false when it was no longer running — or,
   * given the run token the caller saw, when another worker has taken the run over since.
   */
  async failLost(id: string, seenToken?: string | null): Promise<boolean> {
    const [row] = await this.db.query<ExecutionRow>(
      `update executions set status = 'failed', finished_at = now(), updated_at = now(), error = $2::jsonb
        where id = $1 and status = 'running' and ($3::boolean or run_token is not distinct from $4) returning *`,
      [id, WORKER_LOST, seenToken === undefined, seenToken ?? null],
    );
    if (row) {
      recordExecutionOutcome('failed', 'worker_lost');
      await this.events.emit(row, 'execution.failed');
      await this.notifier.changed(row);
    }
    return Boolean(row);
  }

  private async run(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { resumed: 0, lost: 0, requeued: 0 };
    const running = await this.db.query<{ id: string; run_token: string | null }>(
      `select id, run_token from executions where status = 'running' order by id`,
    );
    // A hold that cannot be checked (queue away) fails the pass: nothing is taken up on a guess. Both
    // changes are fenced by the token seen here: a run another worker took over meanwhile is left alone.
    for (const { id, run_token: token } of running) {
      if (await this.queue.isHeld(id)) continue;
      const resumable = await queueToResume(this.db, id, token);
      if (resumable) {
        await this.notifier.changed(resumable);
        await this.queue.ensureQueued(id);
        outcome.resumed++;
      } else if (await this.failLost(id, token)) outcome.lost++;
    }
    const queued = await this.db.query<{ id: string }>(`select id from executions where status = 'queued' order by id`);
    for (const { id } of queued) if (await this.queue.ensureQueued(id)) outcome.requeued++;
    if (outcome.resumed || outcome.lost || outcome.requeued)
      this.logger.warn(
        `sweep: ${outcome.resumed} resumed (worker lost), ${outcome.requeued} queued again, ${outcome.lost} failed (worker lost)`,
      );
    return outcome;
  }

  private warn(error: unknown): void {
    // A dependency away fails every pass: one line every 30 s is enough.
    if (Date.now() - this.lastWarning < 30_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(`sweep skipped: ${describeValue(error)}`);
  }
}
