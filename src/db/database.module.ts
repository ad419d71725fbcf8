import { join } from 'node:path';
import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from './database.js';
import { migrate } from './migrations.js';
import { tracedDatabase } from '../telemetry/traced-database.js';

/** Each driver is loaded only by the topology that uses it (the other is JavaScript parsed for nothing). */
async function openDriver(config: AppConfig): Promise<Database> {
  if (config.databaseUrl) {
    const { PostgresDatabase } = await import('./postgres-database.js');
    return PostgresDatabase.open(config.databaseUrl, {
      schema: config.databaseSchema,
      timeoutMs: config.dependencyTimeoutMs,
    });
  }
  const { PgliteDatabase } = await import('./pglite-database.js');
  return PgliteDatabase.open(join(config.dataDir, 'db'));
}

/** Opens the store the configuration names — PostgreSQL with DATABASE_URL, else embedded PGlite — and migrates it. */
export async function openDatabase(config: AppConfig): Promise<Database> {
  const db = await openDriver(config);
  const applied = await migrate(db);
  if (applied) new Logger('Database').log(`${db.driver}: applied ${applied} migration(s)`);
  return tracedDatabase(db);
}

const CLOSE_WITHIN_MS = 3000;

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async onApplicationShutdown(): Promise<void> {
    // Bounded: a pool waiting on an unreachable server must not hold the shutdown.
    await Promise.race([this.db.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_WITHIN_MS).unref())]);
  }
}

@Module({
  providers: [{ provide: DATABASE, inject: [APP_CONFIG], useFactory: openDatabase }, DatabaseCloser],
  exports: [DATABASE],
})
export class DatabaseModule {}
