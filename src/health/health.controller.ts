import { Controller, Get, Inject, Res } from '@nestjs/common';
import { MCP_STATE_STORE, type McpStateStore } from '@kobana/nest-mcp';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';

const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

/**
 * For a load balancer: `live` says the process answers; `ready` says its dependencies (database,
 * MCP state store) answer too, so traffic goes elsewhere while they do not — and comes back by
 * itself when they recover.
 */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(MCP_STATE_STORE) private readonly store: McpStateStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('live')
  live(@Res() res: Response): void {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  }

  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    const check = async (ping: () => Promise<void>) =>
      within(ping(), this.config.dependencyTimeoutMs).then(
        () => 'up' as const,
        () => 'down' as const,
      );
    const [database, stateStore] = await Promise.all([check(() => this.db.ping()), check(() => this.store.ping())]);
    const ok = database === 'up' && stateStore === 'up';
    res.setHeader('Cache-Control', 'no-store');
    if (!ok) res.setHeader('Retry-After', '5');
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? 'ok' : 'unavailable', checks: { database, state_store: stateStore } });
  }
}
