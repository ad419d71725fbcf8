import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { issueDevToken } from '../../src/auth/dev-token.js';
import { loadConfig } from '../../src/config/app-config.js';
import { BlackholeProxy } from './blackhole-proxy.js';
import { ensureBuilt, jsonLines, runApp } from './built-app.js';
import { PG_URL, postgres, REDIS_URL, redis, requires } from '../support/infrastructure.js';

/**
 * The built app as an operator starts and stops it: each configuration that cannot work is
 * refused at once — exit 1, one line naming the variable — and SIGTERM always ends the process
 * within its bound, even with Redis unreachable.
 */
const withRedis = requires(await redis());
const withPostgres = requires(await postgres());
const KEY = 'k'.repeat(32);
const dirs: string[] = [];
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'kadu-ops-'));
  dirs.push(dir);
  return dir;
};

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('start-up refuses a configuration that cannot work, one line each', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  async function refused(env: Record<string, string>): Promise<{ lines: string[]; seconds: number; dir: string }> {
    const dir = env.DATA_DIR ?? dataDir();
    const started = Date.now();
    const app = runApp({ PORT: '0', DATA_DIR: dir, ...env });
    const exit = await app.exited;
    expect(exit.code, app.stdout() + app.stderr()).toBe(1);
    // Nothing started: no banner, no stack trace.
    expect(app.stdout()).not.toContain('Kadu listening');
    expect(app.stderr()).not.toMatch(/\n\s+at /);
    return { lines: app.stderr().trim().split('\n'), seconds: (exit.at - started) / 1000, dir };
  }

  // The rule cases whose configuration names a real PostgreSQL or Redis need it to answer: else its
  // probe adds a second line.
  const problemCases: [string, () => Promise<Record<string, string>>, RegExp, typeof withRedis?][] = [
    [
      'an unreachable database: host:port and the cause',
      async () => ({
        DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/test`,
        DEV_SIGNING_KEY_FILE: '/k.json',
      }),
      /^Kadu cannot start: DATABASE_URL: cannot use PostgreSQL at 127\.0\.0\.1:\d+\/test \(.*ECONNREFUSED.*\)$/,
    ],
    [
      'REDIS_URL that is not a URL',
      async () => ({ REDIS_URL: 'notaurl', DEV_SIGNING_KEY_FILE: '/k.json' }),
      /^Kadu cannot start: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL .*got 'notaurl'$/,
    ],
    [
      'REDIS_URL where nothing listens',
      async () => ({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, DEV_SIGNING_KEY_FILE: '/k.json' }),
      /^Kadu cannot start: REDIS_URL: cannot use Redis at 127\.0\.0\.1:\d+ \(.*ECONNREFUSED.*\)$/,
    ],
    [
      'MCP_STATE_KEY shorter than 32 bytes',
      async () => ({ MCP_STATE_KEY: 'abc' }),
      /^Kadu cannot start: MCP_STATE_KEY is 3 bytes; it must be at least 32/,
    ],
    [
      'production without MCP_STATE_KEY',
      async () => ({ NODE_ENV: 'production', ALLOW_DEV_TOKENS: 'true' }),
      /^Kadu cannot start: NODE_ENV=production needs MCP_STATE_KEY/,
    ],
    [
      'production with development tokens',
      async () => ({ NODE_ENV: 'production', MCP_STATE_KEY: KEY }),
      /^Kadu cannot start: NODE_ENV=production with development tokens: set OAUTH_ISSUER and OAUTH_JWKS_URL/,
    ],
    [
      'DATABASE_URL in production without a shared MCP_STATE_KEY',
      async () => ({
        NODE_ENV: 'production',
        ALLOW_DEV_TOKENS: 'true',
        DATABASE_URL: PG_URL,
        DEV_SIGNING_KEY_FILE: '/k.json',
      }),
      /^Kadu cannot start: DATABASE_URL set in production without MCP_STATE_KEY: every replica must share one key/,
      withPostgres,
    ],
    [
      'development tokens in the distributed topology without an explicit signing key',
      async () => ({ REDIS_URL, MCP_STATE_KEY: KEY }),
      /^Kadu cannot start: development tokens with REDIS_URL need DEV_SIGNING_KEY or DEV_SIGNING_KEY_FILE shared by every replica/,
      withRedis,
    ],
    [
      'an unwritable DATA_DIR',
      async () => ({ DATA_DIR: join(notADirectory(), 'data') }),
      /^Kadu cannot start: DATA_DIR: .* is not writable \(ENOTDIR\)$/,
    ],
  ];

  for (const [what, env, line, gate] of problemCases) {
    (gate?.it ?? it)(
      what,
      async () => {
        const { lines, seconds } = await refused(await env());
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(line);
        // "Within a few seconds": each probe is bounded at 3 s; generous here for a loaded machine.
        expect(seconds).toBeLessThan(15);
      },
      30_000,
    );
  }

  it('a port in use, found before the database is opened', async () => {
    const { lines, dir } = await refused({ PORT: String(busyPort) });
    expect(lines).toEqual([`Kadu cannot start: PORT: 127.0.0.1:${busyPort} is already in use by another process`]);
    expect(existsSync(join(dir, 'db'))).toBe(false);
  });

  it('every problem at once, one line each', async () => {
    const { lines } = await refused({
      PUBLIC_BASE_URL: 'nope',
      KADU_RATE_GENERAL: 'lots',
      OTEL_METRICS_EXPORTER: 'carrier-pigeon',
    });
    expect(lines).toEqual([
      "Kadu cannot start: PUBLIC_BASE_URL must be an absolute URL, got 'nope'",
      'Kadu cannot start: KADU_RATE_GENERAL must be "points/seconds" or "off", got \'lots\'',
      'Kadu cannot start: OTEL_METRICS_EXPORTER: unsupported exporter(s) carrier-pigeon (use otlp, prometheus, console, none)',
    ]);
  });
});

function notADirectory(): string {
  const file = join(dataDir(), 'a-file');
  writeFileSync(file, 'not a folder');
  return file;
}

describe('SIGTERM always ends the process', () => {
  it('stops cleanly on the embedded defaults (telemetry off: the access line is still written)', async () => {
    const dir = dataDir();
    const token = await issueDevToken(loadConfig({ PORT: '0', DATA_DIR: dir }), {
      org: 'acme',
      user: 'ana@acme.test',
      role: 'admin',
    });
    const app = runApp({ PORT: '0', DATA_DIR: dir, KADU_SHUTDOWN_TIMEOUT_MS: '5000' });
    try {
      const base = (await app.waitFor(/Kadu listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
      const r = modernRequest('tools/call', { name: 'kadu_tasks_list', arguments: {} });
      expect(
        (await request(base).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body)).status,
      ).toBe(200);
      const line = await app.waitFor(/^\{.*"event":"http\.request".*\}$/m);
      expect(JSON.parse(line[0])).toMatchObject({
        route: '/mcp',
        status: 200,
        mcp_method: 'tools/call',
        mcp_target: 'kadu_tasks_list',
        mcp_era: 'modern',
        org: 'acme',
        subject: 'ana@acme.test',
        outcome: 'ok',
      });
      expect(app.stdout()).not.toContain(token);
      app.child.kill('SIGTERM');
      const exit = await app.exited;
      expect(exit.code).toBe(0);
      const lines = jsonLines(app.stdout());
      const events = lines.map((l) => l.event);
      expect(events).toContain('shutdown.start');
      expect(events).toContain('shutdown.done');
      // At the default level Nest's start-up inventory (a line per module and per route) is not written.
      expect(lines.map((l) => l.context)).toContain('NestApplication');
      expect(lines.filter((l) => /InstanceLoader|RoutesResolver|RouterExplorer/.test(String(l.context)))).toEqual([]);
    } finally {
      app.kill();
    }
  }, 90_000);

  for (const fault of ['blackholed', 'refused'] as const) {
    withRedis.it(
      `with Redis ${fault}, within the bound`,
      async () => {
        const redis = new URL(REDIS_URL);
        const proxy = new BlackholeProxy(redis.hostname, Number(redis.port || 6379));
        await proxy.start();
        const dir = dataDir();
        // The key the spawned app is told to use (DEV_SIGNING_KEY_FILE), made the usual way.
        await issueDevToken(loadConfig({ PORT: '0', DATA_DIR: dir }), {
          org: 'acme',
          user: 'ana@acme.test',
          role: 'admin',
        });
        const bound = 4000;
        const app = runApp({
          PORT: '0',
          DATA_DIR: dir,
          REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          REDIS_PREFIX: `kadu-ops-${process.pid}-${Date.now()}:`,
          MCP_STATE_KEY: KEY,
          DEV_SIGNING_KEY_FILE: join(dir, 'dev-signing-key.json'),
          KADU_SHUTDOWN_TIMEOUT_MS: String(bound),
        });
        try {
          await app.waitFor(/Kadu listening on/);
          if (fault === 'blackholed') proxy.blackhole();
          else await proxy.stop();
          await new Promise((r) => setTimeout(r, 500));
          const signalled = Date.now();
          app.child.kill('SIGTERM');
          const exit = await app.exited;
          // The bound, plus the time a loaded machine takes to run the exit itself.
          expect(exit.at - signalled).toBeLessThan(bound + 3000);
          expect(exit.signal).toBeNull();
          expect([0, 1]).toContain(exit.code);
          const events = jsonLines(app.stdout()).map((l) => l.event);
          expect(events).toContain('shutdown.start');
          expect(events.some((e) => e === 'shutdown.done' || e === 'shutdown.timeout')).toBe(true);
        } finally {
          app.kill();
          await proxy.stop();
        }
      },
      90_000,
    );
  }
});
