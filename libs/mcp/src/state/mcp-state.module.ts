import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { InMemoryStateStore } from './in-memory-state-store.js';
import { MCP_STATE_STORE, type McpStateStore } from './mcp-state-store.js';
import {
  MCP_STATE_OPTIONS,
  type McpStateModuleAsyncOptions,
  McpStateModuleBase,
  type McpStateModuleOptions,
  type McpStateOptions,
} from './mcp-state.options.js';
import { RateLimits } from './rate-limits.js';

/** Closes the store when the app shuts down (whichever module provides it). */
@Injectable()
class StateStoreCloser implements OnApplicationShutdown {
  constructor(@Inject(MCP_STATE_STORE) private readonly store: McpStateStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/** The store and the budgets, built from `MCP_STATE_OPTIONS` (McpModule builds them from its own options when alone). */
export const STATE_PROVIDERS: Provider[] = [
  {
    provide: MCP_STATE_STORE,
    inject: [MCP_STATE_OPTIONS],
    useFactory: (options: McpStateOptions) => options.store ?? new InMemoryStateStore(),
  },
  RateLimits,
  StateStoreCloser,
];

/**
 * The state the MCP endpoint shares with the host's own guards: the store (nonces, approvals,
 * counters) and the rate-limit budgets. Register it once and import it where it is needed, in
 * McpModule's `imports` and in the host's modules whose guards spend the same budgets:
 *
 *   export const McpState = McpStateModule.forRootAsync({ inject: [CONFIG], useFactory: (c) => ({ store: … }) });
 *   McpModule.forRootAsync({ imports: [McpState], … })
 */
@Module({})
export class McpStateModule extends McpStateModuleBase {
  static override forRoot(options: McpStateModuleOptions = {}): DynamicModule {
    return withState(super.forRoot(options));
  }

  static override forRootAsync(options: McpStateModuleAsyncOptions): DynamicModule {
    return withState(super.forRootAsync(options));
  }
}

function withState(base: DynamicModule): DynamicModule {
  return {
    ...base,
    providers: [...(base.providers ?? []), ...STATE_PROVIDERS],
    exports: [MCP_STATE_STORE, RateLimits],
  };
}
