import { Module } from '@nestjs/common';
import { hashTagged } from '@kobana/nest-mcp/redis';
import { ExecutionsController } from '../api/executions.controller.js';
import { TaskRunsController } from '../api/task-runs.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { CommonModule } from '../common/common.module.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseModule } from '../db/database.module.js';
import { FilesModule } from '../files/files.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { TracedExecutionQueue } from '../telemetry/traced-execution-queue.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ExecutionIntake } from './execution-intake.js';
import { ExecutionRecords } from './execution-records.js';
import { ExecutionNotifier } from './execution-notifier.js';
import { ExecutionProgressService } from './execution-progress.js';
import { EXECUTION_QUEUE, InMemoryExecutionQueue } from './execution-queue.js';
import { ExecutionRunner } from './execution-runner.js';
import { ExecutionSweeper } from './execution-sweeper.js';
import { ExecutionsService } from './executions.service.js';

/**
 * Executions: runs of tasks, queued, run by the worker, swept when a replica dies, followed by
 * their progress (`/api/v1/executions`, `POST /api/v1/tasks/{id}/run`, kadu_executions_*). Its
 * changes are its own event (ExecutionNotifier), heard by the MCP wiring (src/mcp/kadu-mcp.module.ts).
 */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule, AuthModule, TasksModule, FilesModule, WebhooksModule],
  controllers: [TaskRunsController, ExecutionsController],
  providers: [
    {
      provide: EXECUTION_QUEUE,
      inject: [APP_CONFIG],
      // BullMQ (2 MB of JavaScript with its dependencies) is loaded only with Redis, as the AWS SDK in FilesModule.
      useFactory: async (c: AppConfig) =>
        c.redis
          ? new TracedExecutionQueue(
              new (await import('./bull-execution-queue.js')).BullExecutionQueue({
                redis: c.redis,
                // One slot for all of BullMQ's keys (its scripts take several) in Redis Cluster.
                prefix: c.redis.mode === 'cluster' ? hashTagged(`${c.redisPrefix}queue`) : `${c.redisPrefix}queue`,
                lockMs: c.queueLockMs,
                timeoutMs: c.dependencyTimeoutMs,
              }),
              'bullmq',
            )
          : new TracedExecutionQueue(new InMemoryExecutionQueue(), 'in_process'),
    },
    ExecutionRecords,
    ExecutionIntake,
    ExecutionsService,
    ExecutionRunner,
    ExecutionNotifier,
    ExecutionSweeper,
    ExecutionProgressService,
  ],
  exports: [ExecutionsService, ExecutionNotifier, ExecutionProgressService],
})
export class ExecutionsModule {}
