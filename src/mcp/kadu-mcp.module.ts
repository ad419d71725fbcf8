import { Module } from '@nestjs/common';
import { McpModule } from '@kobana/nest-mcp';
import { AuthModule } from '../auth/auth.module.js';
import { McpAuthGuard } from '../auth/auth.guards.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { ExecutionEvents } from './execution-events.js';
import { ExecutionTasks } from './execution-tasks.js';
import { KaduConfirmations } from './kadu-confirmations.js';
import { KaduMcpState, kaduMcpOptions } from './kadu-mcp.options.js';
import { KADU_MCP_PATH } from './kadu-pages.js';
import { KaduToolsModule } from './kadu-tools.module.js';
import { STATE_SECRET } from './state-key.js';

/** Kadu's MCP endpoint on /mcp: its guard, its confirmations and task source, the state shared with the REST door. */
const KaduMcpEndpoint = McpModule.forRootAsync({
  path: KADU_MCP_PATH,
  guards: [McpAuthGuard],
  imports: [AuthModule, KaduToolsModule],
  // The store the REST door's budgets share (an explicit option: libs/mcp/docs/module-options.md).
  state: KaduMcpState,
  inject: [APP_CONFIG, STATE_SECRET, KaduConfirmations, ExecutionTasks],
  useFactory: (
    cfg: AppConfig,
    stateSecret: string,
    confirmations: KaduConfirmations,
    executionTasks: ExecutionTasks,
  ) => ({
    ...kaduMcpOptions(cfg, stateSecret),
    describeConfirmation: (tool, args, principal) => confirmations.describe(tool, args, principal),
    // kadu_tasks_run answers a task to clients that declare the Tasks extension.
    tasks: executionTasks,
  }),
});

/**
 * The MCP wiring: McpModule's registration, and what joins it to the domains without a module
 * cycle — the domains never import it; ExecutionEvents, here, hears the executions domain's event
 * and publishes through McpModule's exports. Exports McpModule to the modules that read it
 * explicitly: the OpenAPI description (the tool registry) and the sign-in pages (page settings).
 */
@Module({
  imports: [KaduMcpEndpoint, ExecutionsModule, KaduToolsModule],
  providers: [ExecutionEvents],
  exports: [KaduMcpEndpoint],
})
export class KaduMcpModule {}
