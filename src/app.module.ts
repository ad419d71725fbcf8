import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminModule } from './api/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ApiExceptionFilter } from './common/api-exception.filter.js';
import type { AppConfig } from './config/app-config.js';
import { KaduConfigModule } from './config/kadu-config.module.js';
import { ExecutionsModule } from './executions/executions.module.js';
import { FilesModule } from './files/files.module.js';
import { HealthModule } from './health/health.module.js';
import { KaduMcpModule } from './mcp/kadu-mcp.module.js';
import { loadStateKey, STATE_SECRET } from './mcp/state-key.js';
import { DevAuthorizationServerModule } from './oauth/oauth.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { TasksModule } from './tasks/tasks.module.js';
import { UsageModule } from './usage/usage.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

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

/**
 * The Kadu monolith: its REST API under /api/v1 and its MCP endpoint on /mcp, one Nest feature
 * module per domain (docs/contributors/architecture.md, module map). Each imports what it uses;
 * only the configuration above is global. Their order is the order of tools/list.
 */
@Module({})
export class AppModule {
  /** `extraImports`: modules added to the same app (benchmarks mount a trivial echo route and tool). */
  static forRoot(config: AppConfig, extraImports: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.with(config),
        AuthModule,
        UsageModule,
        TasksModule,
        ExecutionsModule,
        FilesModule,
        WebhooksModule,
        AdminModule,
        HealthModule,
        KaduMcpModule,
        OpenApiModule,
        ...(config.devAuthServer ? [DevAuthorizationServerModule] : []),
        ...(extraImports ?? []),
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
