import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { WebhookEvents } from '../webhooks/webhook-events.js';
import { EXECUTION_QUEUE, type ExecutionQueue } from './execution-queue.js';
import type { ExecutionRow } from './execution.view.js';
import { recordExecutionOutcome } from '../telemetry/kadu-metrics.js';
import { describeValue } from '@kobana/nest-mcp';

const WORKER_LOST =
  '{"code":"worker_lost","message":"The worker stopped while this execution was running; run the task again"}';

export interface SweepOutcome {
  /** `running` executions no live worker held: failed `worker_lost`. */
  lost: number;
  /** `queued` executions no queue held: queued again. */
  requeued: number;
}

/**
 * Every replica, every KADU_SWEEP_INTERVAL_MS: fails the `running` executions whose worker no
 * longer holds them (dead replica, lost lock, outage mid-run) and queues again the `queued` ones
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

  /** Fails a `running` execution whose worker is gone; false when it was no longer running. */
  async failLost(id: string): Promise<boolean> {
    const [row] = await this.db.query<ExecutionRow>(
      `update executions set status = 'failed', finished_at = now(), updated_at = now(), error = $2::jsonb
        where id = $1 and status = 'running' returning *`,
      [id, WORKER_LOST],
    );
    if (row) {
      recordExecutionOutcome('failed', 'worker_lost');
      await this.events.emit(row, 'execution.failed');
      await this.notifier.changed(row);
    }
    return Boolean(row);
  }

  private async run(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { lost: 0, requeued: 0 };
    const running = await this.db.query<{ id: string }>(
      `select id from executions where status = 'running' order by id`,
    );
    // A hold that cannot be checked (queue away) fails the pass: nothing is failed on a guess.
    for (const { id } of running) if (!(await this.queue.isHeld(id)) && (await this.failLost(id))) outcome.lost++;
    const queued = await this.db.query<{ id: string }>(`select id from executions where status = 'queued' order by id`);
    for (const { id } of queued) if (await this.queue.ensureQueued(id)) outcome.requeued++;
    if (outcome.lost || outcome.requeued)
      this.logger.warn(`sweep: ${outcome.requeued} queued again, ${outcome.lost} failed (worker lost)`);
    return outcome;
  }

  private warn(error: unknown): void {
    // A dependency away fails every pass: one line every 30 s is enough.
    if (Date.now() - this.lastWarning < 30_000) return;
    this.lastWarning = Date.now();
    this.logger.warn(`sweep skipped: ${describeValue(error)}`);
  }
}
