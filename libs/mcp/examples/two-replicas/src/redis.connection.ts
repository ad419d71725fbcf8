import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { settings } from './settings';

/** The app's own Redis connection (its data); the MCP state store keeps one of its own. */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  readonly client = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit();
  }
}
