import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { FilesModule } from '../files/files.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { TasksModule } from '../tasks/tasks.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ExecutionAppService } from './execution-app.service.js';
import { ExecutionTasks } from './execution-tasks.js';
import { KaduCompletionsService } from './kadu-completions.service.js';
import { KaduConfirmations } from './kadu-confirmations.js';
import { KaduPromptsService } from './kadu-prompts.service.js';

/**
 * What only the MCP door has, over the domains: prompts, completions, the execution app, the
 * confirmation sentences and the executions as MCP tasks. McpModule's factory takes the last two
 * from here (KaduMcpModule); nothing here needs McpModule's own exports.
 */
@Module({
  imports: [
    DatabaseModule,
    OrgsModule,
    TasksModule,
    ExecutionsModule,
    FilesModule,
    WebhooksModule,
    SecretsModule,
    UsageModule,
  ],
  providers: [KaduPromptsService, ExecutionAppService, KaduCompletionsService, KaduConfirmations, ExecutionTasks],
  exports: [KaduConfirmations, ExecutionTasks],
})
export class KaduToolsModule {}
