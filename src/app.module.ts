import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { McpModule } from '@kobana/nest-mcp';
import { AuthModule } from './auth/auth.module.js';
import { McpAuthGuard } from './auth/auth.guards.js';
import { ApiExceptionFilter } from './common/api-exception.filter.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { KaduModule } from './kadu.module.js';
import { KaduConfirmations } from './mcp/kadu-confirmations.js';
import { ExecutionTasks } from './mcp/execution-tasks.js';
import { kaduMcpOptions } from './mcp/kadu-mcp.options.js';
import { loadStateKey } from './mcp/state-key.js';
import { DevAuthorizationServerModule } from './oauth/oauth.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';

@Global()
@Module({})
class ConfigModule {
  static with(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
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
          path: 'mcp',
          guards: [McpAuthGuard],
          inject: [APP_CONFIG, KaduConfirmations, ExecutionTasks],
          useFactory: (cfg: AppConfig, confirmations: KaduConfirmations, executionTasks: ExecutionTasks) => ({
            ...kaduMcpOptions(cfg),
            stateKey: loadStateKey(cfg),
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
