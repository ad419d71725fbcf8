import { Module } from '@nestjs/common';
import { McpModule } from '@kobana/nest-mcp';
import { RedisStateStore } from '@kobana/nest-mcp/redis';
import { NotesService } from './notes.service';
import { RedisConnection } from './redis.connection';
import { settings } from './settings';

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'notes', version: '1.0.0' },
      publicBaseUrl: settings.publicBaseUrl,
      // What replicas must share (docs/replicas.md): the key and the store.
      stateKey: settings.stateKey,
      stateStore: new RedisStateStore(settings.redisUrl, `${settings.prefix}mcp:`),
      // Every caller is the same local user, as in the quick start; put your authentication here.
      principal: () => ({ subject: 'local-dev', scopes: [] }),
    }),
  ],
  providers: [RedisConnection, NotesService],
})
export class AppModule {}
