import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import pg from 'pg';
import { inject } from 'vitest';
import { createKaduApp } from '../../src/bootstrap.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { issueDevToken, type DevTokenRequest } from '../../src/auth/dev-token.js';
import { freePort } from '../../scripts/free-port.mjs';
import { PG_URL, REDIS_URL } from './infrastructure.js';
import { s3Env } from './s3-server.js';

export interface KaduTestApp {
  app: INestApplication;
  server: Server;
  config: AppConfig;
  /** A development token for this app (default: admin of org `acme`, MCP audience). */
  token(request?: Partial<DevTokenRequest>): Promise<string>;
  /** Stops the app; the data (folder or schema) is kept when `keepData` (restart tests). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * A fresh data folder's embedded database starts as a copy of the run's migrated one
 * (db-template.global-setup.ts) rather than PGlite's initdb plus the migrations.
 */
export function seedEmbeddedDatabase(dataDir: string): void {
  const template = inject('kaduDbTemplate');
  if (template) execFileSync('cp', ['-R', template, join(dataDir, 'db')]);
}

/**
 * The variables that make a second start the same deployment as `config`'s — its data folder, and in
 * the distributed pass its PostgreSQL schema, Redis prefix and bucket prefix (startKadu gives each new
 * app fresh ones) — for tests that stop an app and start it again on what it left.
 */
export function sameDeployment(config: AppConfig): Record<string, string> {
  return {
    DATA_DIR: config.dataDir,
    ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}),
    ...(config.redis ? { REDIS_PREFIX: config.redisPrefix } : {}),
    ...(config.s3 ? { S3_PREFIX: config.s3.prefix } : {}),
  };
}

/** Set by `npm run test:distributed` (the second pass): every app runs on PostgreSQL and Redis. */
export const DISTRIBUTED = process.env.KADU_TEST_TOPOLOGY === 'distributed';

/**
 * The real Kadu app on its embedded defaults, in a fresh data folder. In the distributed pass the
 * same tests run against PostgreSQL (each app in its own schema) and Redis (its own key prefix),
 * found at KADU_TEST_DATABASE_URL / KADU_TEST_REDIS_URL, and with KADU_TEST_S3_ENDPOINT and
 * KADU_TEST_S3_BUCKET files go to that bucket under a fresh prefix (a test that is about the local
 * store passes S3_BUCKET: ''). Outside that pass the service variables only say where the tests
 * that need the services find them (test/support/infrastructure.ts).
 */
export async function startKadu(
  env: Record<string, string> = {},
  /** Feature modules added to the app, as bench/fixtures/kadu-echo.main.ts adds its echo. */
  extraImports: DynamicModule['imports'] = [],
): Promise<KaduTestApp> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'kadu-test-'));
  const pgUrl = DISTRIBUTED ? PG_URL : undefined;
  const redisUrl = DISTRIBUTED ? REDIS_URL : undefined;
  const s3Endpoint = DISTRIBUTED ? process.env.KADU_TEST_S3_ENDPOINT : undefined;
  const s3Bucket = DISTRIBUTED ? process.env.KADU_TEST_S3_BUCKET : undefined;
  const schema = env.DATABASE_SCHEMA ?? (pgUrl ? `kadu_t_${randomBytes(6).toString('hex')}` : undefined);
  const config = loadConfig({
    PORT: '3000',
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    // Functional tests are not about budgets: generous ones, unless a test sets its own.
    KADU_RATE_GENERAL: '100000/60',
    KADU_RATE_WRITES: '100000/60',
    KADU_RATE_FAILED_AUTH: '100000/60',
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema! } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: `kadu-test-${randomBytes(6).toString('hex')}:` } : {}),
    ...(s3Endpoint && s3Bucket ? s3Env(s3Endpoint, s3Bucket, `t-${randomBytes(6).toString('hex')}/`) : {}),
    ...env,
  });
  if (!config.databaseUrl && env.DATA_DIR === undefined) seedEmbeddedDatabase(dataDir);
  const app = await createKaduApp(config, ['error'], extraImports);
  return {
    app,
    server: app.getHttpServer() as Server,
    config,
    token: (request = {}) => issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin', ...request }),
    close: async ({ keepData = false } = {}) => {
      await app.close();
      if (keepData) return;
      rmSync(dataDir, { recursive: true, force: true });
      if (pgUrl && schema) {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      }
    },
  };
}

/** A Kadu test app listening on 127.0.0.1, and the public URL it was started with. */
export interface ListeningKaduApp extends KaduTestApp {
  /** `http://127.0.0.1:<port>`, its PUBLIC_BASE_URL. */
  base: string;
}

/**
 * `startKadu` listening on a free port that its PUBLIC_BASE_URL names, for tests whose clients (a
 * browser, an OAuth client) follow the app's own URLs. The port must be known before the app is
 * built, so it is picked first and bound after: when another test process took it in between, the
 * app is closed and another port picked (three tries), as the replicas do (replicas.ts).
 */
export async function startKaduOnFreePort(
  env: Record<string, string> = {},
  /** Where ports come from: freePort, or in its own spec a port already taken. */
  pickPort: () => Promise<number> = freePort,
): Promise<ListeningKaduApp> {
  for (let attempt = 1; ; attempt++) {
    const port = await pickPort();
    const base = `http://127.0.0.1:${port}`;
    const kadu = await startKadu({ ...env, PORT: String(port), PUBLIC_BASE_URL: base });
    try {
      await kadu.app.listen(port, '127.0.0.1');
      return { ...kadu, base };
    } catch (error) {
      // listen's error is the one to report, whatever closing the app meets.
      await kadu.close().catch(() => undefined);
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
    }
  }
}
