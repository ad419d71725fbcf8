import {
  type DynamicModule,
  Inject,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  type OnApplicationShutdown,
  RequestMethod,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { createApprovalController } from './confirmation/approval.controller.js';
import { ApprovalsService } from './confirmation/approvals.service.js';
import { DestructiveGate } from './confirmation/destructive-gate.js';
import { MrtrService } from './confirmation/mrtr.service.js';
import { McpCatalogRegistry } from './discovery/catalog-registry.js';
import { McpToolRegistry } from './discovery/tool-registry.js';
import { AccessPolicy } from './access/access-policy.js';
import { ResourceAccess } from './access/resource-access.js';
import { LISTEN_METHODS } from './call/method-group.js';
import { CompletionHandler } from './dispatch/completion.handler.js';
import { LifecycleHandler } from './dispatch/lifecycle.handler.js';
import { InMemoryEventBus } from './events/in-memory-event-bus.js';
import { MCP_EVENT_BUS, type McpEventBus } from './events/mcp-event-bus.js';
import { ListenHandler } from './subscriptions/listen.handler.js';
import { ListenStreams } from './subscriptions/listen-streams.js';
import { ListenTasks } from './subscriptions/listen-tasks.js';
import { McpEvents } from './subscriptions/mcp-events.js';
import { TaskHandler } from './dispatch/task.handler.js';
import { McpTaskEvents } from './tasks/task-events.js';
import { McpDispatcher } from './dispatch/mcp-dispatcher.js';
import { MethodInvoker } from './dispatch/method-invoker.js';
import { PromptHandler } from './dispatch/prompt.handler.js';
import { ResourceHandler } from './dispatch/resource.handler.js';
import { ToolHandler } from './dispatch/tool.handler.js';
import { ToolInvoker } from './dispatch/tool-invoker.js';
import { VisibleLists } from './dispatch/visible-lists.js';
import { McpEntryMiddleware } from './http/entry.middleware.js';
import { HostBodyParsers } from './http/host-body-parsers.js';
import { McpExceptionFilter } from './http/mcp-exception.filter.js';
import { EndpointRoutes } from './http/endpoint-routes.js';
import { createMcpController } from './http/mcp.controller.js';
import { createProtectedResourceController } from './http/protected-resource.controller.js';
import { LADDER_GUARDS } from './guards/ladder.js';
import { McpLadderGuard } from './guards/ladder.guard.js';
import { MCP_DECLARED_GUARDS, MCP_ENDPOINT_PATH, McpConfig, normalizePath } from './mcp-config.js';
import {
  MCP_MODULE_OPTIONS,
  type McpModuleAsyncOptions,
  McpModuleBase,
  type McpModuleExtras,
  type McpModuleRootOptions,
} from './mcp.options.js';
import { createPageAssetsController } from './pages/page-assets.controller.js';
import { MCP_STATE_STORE } from './state/mcp-state-store.js';
import { McpStateModule, STATE_PROVIDERS } from './state/mcp-state.module.js';
import { MCP_STATE_OPTIONS } from './state/mcp-state.options.js';
import { RateLimits } from './state/rate-limits.js';
import { MCP_SETTINGS, type McpSettings } from './settings/mcp-settings.js';
import { resolveOptions } from './settings/resolve-options.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';

const PROVIDERS = [
  // The one reading of the raw options (settings/resolve-options.ts).
  { provide: MCP_SETTINGS, inject: [MCP_MODULE_OPTIONS], useFactory: resolveOptions },
  McpConfig,
  McpTelemetry,
  McpToolRegistry,
  AccessPolicy,
  MethodInvoker,
  ToolInvoker,
  ToolHandler,
  TaskHandler,
  McpTaskEvents,
  LifecycleHandler,
  ResourceHandler,
  PromptHandler,
  CompletionHandler,
  VisibleLists,
  McpCatalogRegistry,
  MrtrService,
  ApprovalsService,
  DestructiveGate,
  {
    provide: MCP_EVENT_BUS,
    inject: [MCP_SETTINGS],
    useFactory: (settings: McpSettings) => settings.listen.eventBus ?? new InMemoryEventBus(),
  },
  ListenStreams,
  ListenTasks,
  ListenHandler,
  { provide: LISTEN_METHODS, useExisting: ListenHandler },
  { provide: ResourceAccess, useExisting: ResourceHandler },
  McpEvents,
  McpDispatcher,
  ...LADDER_GUARDS,
  McpLadderGuard,
  McpExceptionFilter,
  HostBodyParsers,
  EndpointRoutes,
];

/**
 * One stateless MCP endpoint, registered the Nest way (ConfigurableModuleBuilder):
 *
 *   McpModule.forRoot({ serverInfo, path: 'mcp', guards: [AuthGuard] })
 *   McpModule.forRootAsync({ path: 'mcp', guards: [AuthGuard], imports: [ConfigModule],
 *                            inject: [ConfigService], useFactory: (c) => ({ serverInfo: … }) })
 *   McpModule.forRootAsync({ useClass: McpOptions })      // or useExisting; the class has create()
 *
 * `path`, `guards`, `imports` and `global` are fixed at registration (they shape routes); the rest
 * may come from a factory. The state store and budgets come from the McpStateModule given as
 * `state`, else from the options' `stateStore` / `rateLimits`.
 */
@Module({})
export class McpModule extends McpModuleBase implements NestModule, OnApplicationShutdown {
  constructor(
    private readonly config: McpConfig,
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
  ) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }

  static override forRoot(options: McpModuleRootOptions): DynamicModule {
    return McpModule.complete(super.forRoot(options), options);
  }

  static override forRootAsync(options: McpModuleAsyncOptions): DynamicModule {
    return McpModule.complete(super.forRootAsync(options), options);
  }

  private static complete(base: DynamicModule, extras: McpModuleExtras): DynamicModule {
    const path = normalizePath(extras.path);
    const imports = extras.imports ?? [];
    const sharedState = stateModuleOf(extras);
    const ownState = [
      {
        provide: MCP_STATE_OPTIONS,
        inject: [MCP_SETTINGS],
        useFactory: ({ state }: McpSettings) => ({ store: state.stateStore, rateLimits: state.rateLimits }),
      },
      ...STATE_PROVIDERS,
    ];
    return {
      ...base,
      imports: [DiscoveryModule, ...imports, ...(sharedState ? [sharedState] : [])],
      controllers: [
        createMcpController(path, extras.guards ?? []),
        createProtectedResourceController(path),
        createApprovalController(path),
        createPageAssetsController(path),
      ],
      providers: [
        ...(base.providers ?? []),
        { provide: MCP_ENDPOINT_PATH, useValue: path },
        { provide: MCP_DECLARED_GUARDS, useValue: extras.guards?.length ?? 0 },
        ...(sharedState ? [] : ownState),
        ...PROVIDERS,
      ],
      exports: [
        McpConfig,
        McpToolRegistry,
        McpCatalogRegistry,
        MCP_EVENT_BUS,
        McpEvents,
        ListenStreams,
        McpTaskEvents,
        ...(sharedState ? [] : [MCP_STATE_STORE, RateLimits]),
      ],
      global: extras.global ?? false,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpEntryMiddleware).forRoutes({ path: this.config.path, method: RequestMethod.ALL });
  }
}

/**
 * The shared state is named by the `state` extra. An McpStateModule among `imports` (how it was
 * given before) is refused rather than ignored: the endpoint would keep a store of its own, and the
 * host's guards would spend other budgets than the endpoint's.
 */
function stateModuleOf(extras: McpModuleExtras): DynamicModule | undefined {
  const isState = (m: unknown): boolean => (m as DynamicModule | undefined)?.module === McpStateModule;
  if ((extras.imports ?? []).some(isState))
    throw new Error('McpModule: give the McpStateModule as `state`, not among `imports` (docs/module-options.md)');
  if (extras.state !== undefined && !isState(extras.state))
    throw new Error('McpModule: `state` must be an McpStateModule.forRoot(…) or forRootAsync(…) registration');
  return extras.state;
}
