import { type DynamicModule, Inject, type MiddlewareConsumer, Module, type NestModule, type OnApplicationShutdown, RequestMethod } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccessPolicy } from './dispatch/access-policy.js';
import { CompletionMethods } from './dispatch/completion.methods.js';
import { PromptMethods } from './dispatch/prompt.methods.js';
import { ResourceMethods } from './dispatch/resource.methods.js';
import { VisibleLists } from './dispatch/visible-lists.js';
import { McpCatalogRegistry } from './discovery/catalog-registry.js';
import { createApprovalController } from './confirmation/approval.controller.js';
import { ApprovalsService } from './confirmation/approvals.service.js';
import { DestructiveGate } from './confirmation/destructive-gate.js';
import { MrtrService } from './confirmation/mrtr.service.js';
import { InMemoryStateStore } from './state/in-memory-state-store.js';
import { InMemoryEventBus } from './events/in-memory-event-bus.js';
import { MCP_EVENT_BUS, type McpEventBus } from './events/mcp-event-bus.js';
import { ListenMethods } from './subscriptions/listen.handler.js';
import { ListenStreams } from './subscriptions/listen-streams.js';
import { McpEvents } from './subscriptions/mcp-events.js';
import { MCP_STATE_STORE, type McpStateStore } from './state/mcp-state-store.js';
import { TaskMethods } from './dispatch/task.methods.js';
import { McpTaskEvents } from './tasks/task-events.js';
import { LifecycleMethods } from './dispatch/lifecycle.methods.js';
import { McpDispatcher } from './dispatch/mcp-dispatcher.js';
import { MethodInvoker } from './dispatch/method-invoker.js';
import { ToolInvoker } from './dispatch/tool-invoker.js';
import { ToolMethods } from './dispatch/tool.methods.js';
import { McpToolRegistry } from './discovery/tool-registry.js';
import { McpEntryMiddleware } from './http/entry.middleware.js';
import { HostBodyParsers } from './http/host-body-parsers.js';
import { McpExceptionFilter } from './http/mcp-exception.filter.js';
import { createMcpController } from './http/mcp.controller.js';
import { createProtectedResourceController } from './http/protected-resource.controller.js';
import { createPageAssetsController } from './pages/page-assets.controller.js';
import { EraGuard } from './guards/era.guard.js';
import { HeaderMatchGuard } from './guards/header-match.guard.js';
import { McpTransportGuard } from './guards/transport.guard.js';
import { RateLimitGuard } from './guards/rate-limit.guard.js';
import { RateLimits } from './dispatch/rate-limits.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';
import { MCP_DECLARED_GUARDS, MCP_ENDPOINT_PATH, McpConfig, normalizePath } from './mcp-config.js';
import {
  MCP_MODULE_OPTIONS,
  type McpModuleAsyncOptions,
  type McpModuleDeclaration,
  type McpModuleOptions,
} from './mcp.options.js';

const PROVIDERS = [
  McpConfig,
  McpTelemetry,
  McpToolRegistry,
  AccessPolicy,
  MethodInvoker,
  ToolInvoker,
  ToolMethods,
  TaskMethods,
  McpTaskEvents,
  LifecycleMethods,
  ResourceMethods,
  PromptMethods,
  CompletionMethods,
  VisibleLists,
  McpCatalogRegistry,
  MrtrService,
  ApprovalsService,
  DestructiveGate,
  {
    provide: MCP_STATE_STORE,
    inject: [MCP_MODULE_OPTIONS],
    useFactory: (options: McpModuleOptions) => options.stateStore ?? new InMemoryStateStore(),
  },
  {
    provide: MCP_EVENT_BUS,
    inject: [MCP_MODULE_OPTIONS],
    useFactory: (options: McpModuleOptions) => options.subscriptions?.eventBus ?? new InMemoryEventBus(),
  },
  ListenStreams,
  ListenMethods,
  McpEvents,
  McpDispatcher,
  McpTransportGuard,
  RateLimitGuard,
  RateLimits,
  EraGuard,
  HeaderMatchGuard,
  McpExceptionFilter,
  HostBodyParsers,
];

/**
 * `McpModule.forRoot(options)` / `forRootAsync({ useFactory, inject })` serve one stateless MCP
 * endpoint. The path and the app's guards are declared statically (they shape routes); everything
 * else may come from a factory.
 */
@Module({})
export class McpModule implements NestModule, OnApplicationShutdown {
  constructor(
    private readonly config: McpConfig,
    @Inject(MCP_STATE_STORE) private readonly store: McpStateStore,
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
    await this.bus.close();
  }

  static forRoot(options: McpModuleOptions & McpModuleDeclaration): DynamicModule {
    return McpModule.declare(options, [{ provide: MCP_MODULE_OPTIONS, useValue: options }]);
  }

  static forRootAsync(options: McpModuleAsyncOptions): DynamicModule {
    return McpModule.declare(options, [
      { provide: MCP_MODULE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
    ]);
  }

  private static declare(declaration: McpModuleDeclaration, optionProviders: DynamicModule['providers']): DynamicModule {
    const path = normalizePath(declaration.path);
    return {
      module: McpModule,
      imports: [DiscoveryModule, ...(declaration.imports ?? [])],
      controllers: [createMcpController(path, declaration.guards ?? []), createProtectedResourceController(path), createApprovalController(path), createPageAssetsController(path)],
      providers: [
        ...(optionProviders ?? []),
        { provide: MCP_ENDPOINT_PATH, useValue: path },
        { provide: MCP_DECLARED_GUARDS, useValue: declaration.guards?.length ?? 0 },
        ...PROVIDERS,
      ],
      exports: [McpConfig, McpToolRegistry, McpCatalogRegistry, AccessPolicy, RateLimits, MCP_STATE_STORE, MCP_EVENT_BUS, McpEvents, ListenStreams, McpTaskEvents],
      // Global, so the app's own guards (REST rate limits, failed logins) share the same budgets.
      global: true,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpEntryMiddleware).forRoutes({ path: this.config.path, method: RequestMethod.ALL });
  }
}
