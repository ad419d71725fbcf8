import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { McpModule } from '@kobana/nest-mcp';
import { AuthModule } from './auth/auth.module.js';
import { McpAuthGuard } from './auth/auth.guards.js';
import { ApiExceptionFilter } from './common/api-exception.filter.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { KaduConfigModule } from './config/kadu-config.module.js';
import { KaduModule } from './kadu.module.js';
import { KaduConfirmations } from './mcp/kadu-confirmations.js';
import { ExecutionTasks } from './mcp/execution-tasks.js';
import { KaduMcpState, kaduMcpOptions } from './mcp/kadu-mcp.options.js';
import { KADU_MCP_PATH } from './mcp/kadu-pages.js';
import { loadStateKey, STATE_SECRET } from './mcp/state-key.js';
import { DevAuthorizationServerModule } from './oauth/oauth.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';

/** The configuration and the state secret (loaded once), global as configuration modules are. */
@Global()
@Module({})
class ConfigModule {
  static with(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      // APP_CONFIG and each slice's token (`databaseConfig.KEY`…) through @nestjs/config.
      imports: [KaduConfigModule.forRoot(config)],
      providers: [{ provide: STATE_SECRET, useFactory: () => loadStateKey(config) }],
      exports: [STATE_SECRET],
    };
  }
}

/** The Kadu monolith: its REST API under /api/v1 and its MCP endpoint on /mcp. */
@Module({})
export class AppModule {
  /** `extraImports`: modules added to the same app (benchmarks mount a trivial echo route and tool). */
  static forRoot(config: AppConfig, extraImports: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.with(config),
        AuthModule,
        KaduModule,
        OpenApiModule,
        ...(config.devAuthServer ? [DevAuthorizationServerModule] : []),
        ...(extraImports ?? []),
        McpModule.forRootAsync({
          path: KADU_MCP_PATH,
          guards: [McpAuthGuard],
          // The guard, the confirmations and the state shared with the REST door.
          imports: [AuthModule, KaduModule],
          state: KaduMcpState,
          // The OpenAPI description reads the tool registry, the sign-in pages the module's page settings.
          global: true,
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
        }),
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
