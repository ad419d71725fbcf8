import { createHash } from 'node:crypto';
import { Module } from '@nestjs/common';
import { AccountController } from './api/account.controller.js';
import { AdminController } from './api/admin.controller.js';
import { ExecutionsController } from './api/executions.controller.js';
import { FilesController } from './api/files.controller.js';
import { TasksController } from './api/tasks.controller.js';
import { WebhooksController } from './api/webhooks.controller.js';
import { ApiRateLimitGuard } from './auth/api-rate-limit.guard.js';
import { MEMBERSHIP } from './auth/membership.js';
import { MembershipBinder } from './auth/membership-binder.js';
import { PermissionGuard } from './auth/permission.guard.js';
import { IdempotencyService } from './common/idempotency.service.js';
import { Paginator } from './common/pagination.js';
import { SecretBox } from './common/secret-box.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { DatabaseModule } from './db/database.module.js';
import { EXECUTION_QUEUE, InMemoryExecutionQueue } from './executions/execution-queue.js';
import { ExecutionNotifier } from './executions/execution-notifier.js';
import { ExecutionRunner } from './executions/execution-runner.js';
import { ExecutionSweeper } from './executions/execution-sweeper.js';
import { ExecutionsService } from './executions/executions.service.js';
import { FILE_STORE } from './files/file-store.js';
import { LocalFileStore } from './files/local-file-store.js';
import { FileTransferController } from './files/file-transfer.controller.js';
import { HealthController } from './health/health.controller.js';
import { FilesService } from './files/files.service.js';
import { UrlSigner } from './files/url-signer.js';
import { KaduCompletionsService } from './mcp/kadu-completions.service.js';
import { KaduConfirmations } from './mcp/kadu-confirmations.js';
import { KaduPromptsService } from './mcp/kadu-prompts.service.js';
import { ExecutionAppService } from './mcp/execution-app.service.js';
import { STATE_SECRET } from './mcp/state-key.js';
import { AuthModule } from './auth/auth.module.js';
import { KaduMcpState } from './mcp/kadu-mcp.options.js';
import { MembersService } from './members/members.service.js';
import { MEMBERSHIP_CHANGES, RedisMembershipChanges } from './orgs/membership-changes.js';
import { hashTagged } from '@kobana/nest-mcp/redis';
import { OrgContextService } from './orgs/org-context.service.js';
import { SecretEntryController } from './secrets/secret-entry.controller.js';
import { SECRET_VALUE_BOX, SecretEntryLinks } from './secrets/secret-entry-links.js';
import { SecretsService } from './secrets/secrets.service.js';
import { TracedExecutionQueue } from './telemetry/traced-execution-queue.js';
import { TaskInputValidator } from './tasks/input-schema.js';
import { TasksService } from './tasks/tasks.service.js';
import { AccountService } from './usage/account.service.js';
import { DeliveryWorker, WEBHOOK_SECRET_BOX } from './webhooks/delivery-worker.js';
import { WebhookEvents } from './webhooks/webhook-events.js';
import { ExecutionTasks } from './mcp/execution-tasks.js';
import { WebhooksService } from './webhooks/webhooks.service.js';

export const STATE_KEY = Symbol('STATE_KEY');

const keyed = <T>(make: (key: Buffer) => T) => ({ inject: [STATE_KEY], useFactory: make });

/** The Kadu domain: persistence, the /api/v1 routes and the services whose methods are the kadu_* tools. */
@Module({
  imports: [DatabaseModule, AuthModule, KaduMcpState],
  controllers: [
    AccountController,
    TasksController,
    ExecutionsController,
    FilesController,
    FileTransferController,
    WebhooksController,
    AdminController,
    SecretEntryController,
    HealthController,
  ],
  providers: [
    {
      provide: STATE_KEY,
      inject: [STATE_SECRET],
      useFactory: (secret: string) => createHash('sha256').update(secret).digest(),
    },
    { provide: Paginator, ...keyed((k) => new Paginator(k)) },
    { provide: UrlSigner, ...keyed((k) => new UrlSigner(k)) },
    { provide: WEBHOOK_SECRET_BOX, ...keyed((k) => new SecretBox(k, 'webhook-secret')) },
    { provide: SECRET_VALUE_BOX, ...keyed((k) => new SecretBox(k, 'secret-value')) },
    {
      provide: EXECUTION_QUEUE,
      inject: [APP_CONFIG],
      // BullMQ (2 MB of JavaScript with its dependencies) is loaded only with Redis, as the AWS SDK below.
      useFactory: async (c: AppConfig) =>
        c.redis
          ? new TracedExecutionQueue(
              new (await import('./executions/bull-execution-queue.js')).BullExecutionQueue({
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
    {
      provide: FILE_STORE,
      inject: [APP_CONFIG, UrlSigner],
      // The AWS SDK is loaded only when a bucket is configured (a quarter of a second and ~20 MB otherwise spent for nothing).
      useFactory: async (c: AppConfig, signer: UrlSigner) =>
        c.s3
          ? new (await import('./files/s3-file-store.js')).S3FileStore(c.s3, c.dependencyTimeoutMs)
          : new LocalFileStore(c, signer),
    },
    PermissionGuard,
    ApiRateLimitGuard,
    {
      // With Redis, a member changed through one replica is forgotten by every replica's cache at once.
      provide: MEMBERSHIP_CHANGES,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) =>
        c.redis ? new RedisMembershipChanges(c.redis, c.redisPrefix, c.dependencyTimeoutMs) : null,
    },
    OrgContextService,
    // The bearer strategies apply the member's current role to every verified token (AuthModule).
    { provide: MEMBERSHIP, useExisting: OrgContextService },
    MembershipBinder,
    IdempotencyService,
    AccountService,
    TasksService,
    TaskInputValidator,
    ExecutionsService,
    ExecutionRunner,
    ExecutionNotifier,
    ExecutionSweeper,
    FilesService,
    WebhooksService,
    WebhookEvents,
    DeliveryWorker,
    SecretsService,
    SecretEntryLinks,
    MembersService,
    KaduPromptsService,
    ExecutionAppService,
    KaduCompletionsService,
    KaduConfirmations,
    ExecutionTasks,
  ],
  exports: [STATE_KEY, KaduConfirmations, ExecutionTasks],
})
export class KaduModule {}
