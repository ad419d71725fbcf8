import { Inject, Injectable, Logger } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';
import { ApiError } from '../common/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { EXECUTION_QUEUE, type ExecutionQueue } from './execution-queue.js';

/**
 * How stored work reaches the queue, for a new run and a continued one: refused before anything is
 * written when the queue is saturated or unreachable, and, once written, queued or marked failed.
 */
@Injectable()
export class ExecutionIntake {
  private readonly logger = new Logger('Executions');

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EXECUTION_QUEUE) private readonly queue: ExecutionQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A saturated queue refuses new work with 503 rather than accepting what it cannot run soon; an
   * unreachable one (Redis away) refuses it before anything is written.
   */
  async checkRoom(): Promise<void> {
    let depth: number;
    try {
      depth = await this.queue.depth();
    } catch {
      throw queueUnavailable();
    }
    if (depth >= this.config.queueMaxDepth) {
      throw new ApiError(
        503,
        'queue_saturated',
        'Service unavailable',
        'Too many executions are waiting to run; retry shortly',
      ).withHeader('Retry-After', '10');
    }
  }

  /**
   * Queues stored work. When the queue cannot take it, a new run is marked failed (the caller hears
   * 503 and may retry: nothing runs twice); a continued one stays `queued` and the sweep queues it
   * again once the queue is back.
   */
  async enqueue(executionId: string, isNewRun = false): Promise<void> {
    try {
      await this.queue.enqueue(executionId);
    } catch (error) {
      this.logger.warn(`execution ${executionId} is stored but could not be queued: ${describeValue(error)}`);
      if (isNewRun) {
        const failed = await this.db.query(
          `update executions set status = 'failed', finished_at = now(), updated_at = now(), error = $2::jsonb where id = $1 and status = 'queued' returning id`,
          [
            executionId,
            JSON.stringify({
              code: 'queue_unavailable',
              message: 'The execution queue could not be reached; run the task again',
            }),
          ],
        );
        // Another replica's sweep queued it meanwhile and a worker took it: it runs, so the run stands.
        if (!failed.length) return;
      }
      throw queueUnavailable();
    }
  }
}

function queueUnavailable(): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    'Service unavailable',
    'The execution queue cannot be reached; retry shortly',
  ).withHeader('Retry-After', '5');
}
