import { join } from 'node:path';
import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from './database.js';
import { migrate } from './migrations.js';
import { PgliteDatabase } from './pglite-database.js';
import { PostgresDatabase } from './postgres-database.js';
import { tracedDatabase } from '../telemetry/traced-database.js';

/** Opens the store the configuration names — PostgreSQL with DATABASE_URL, else embedded PGlite — and migrates it. */
export async function openDatabase(config: AppConfig): Promise<Database> {
  const db = config.databaseUrl
    ? await PostgresDatabase.open(config.databaseUrl, {
        schema: config.databaseSchema,
        timeoutMs: config.dependencyTimeoutMs,
      })
    : await PgliteDatabase.open(join(config.dataDir, 'db'));
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
