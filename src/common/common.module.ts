import { createHash } from 'node:crypto';
import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module.js';
import { STATE_SECRET } from '../mcp/state-key.js';
import { IdempotencyService } from './idempotency.service.js';
import { Paginator } from './pagination.js';

/** The key derived from the state secret that seals cursors, signed URLs and stored secrets. */
export const STATE_KEY = Symbol('STATE_KEY');

/** A provider made from the state key (each use seals with its own purpose). */
export const keyed = <T>(make: (key: Buffer) => T) => ({ inject: [STATE_KEY], useFactory: make });

/** What every domain's service uses: the state key, cursors (Paginator) and idempotent writes. */
@Module({
  imports: [DatabaseModule],
  providers: [
    {
      provide: STATE_KEY,
      inject: [STATE_SECRET],
      useFactory: (secret: string) => createHash('sha256').update(secret).digest(),
    },
    { provide: Paginator, ...keyed((k) => new Paginator(k)) },
    IdempotencyService,
  ],
  exports: [STATE_KEY, Paginator, IdempotencyService],
})
export class CommonModule {}
