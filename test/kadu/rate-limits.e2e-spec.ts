import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import type { MockInstance } from 'vitest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, type Era, KaduClient } from '../support/kadu-client.js';
import { eventually } from '../support/eventually.js';
import { PG_URL, postgres, REDIS_URL, redis, requires } from '../support/infrastructure.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Issue 8: one caller cannot starve the others; an overloaded deployment says "come back later".
 * Windows are a minute long, so that no request under test can cross one by accident; the tests
 * that need a window to end move the clock the in-memory limiter reads (Date.now) instead of waiting.
 */
const LIMITS = { KADU_RATE_GENERAL: '5/60', KADU_RATE_WRITES: '3/60', KADU_RATE_FAILED_AUTH: '3/60' };
// The budgets under test live in this process's memory (whatever the pass), so the clock can move.
const IN_MEMORY = { ...LIMITS, REDIS_URL: '' };
const VERSION: Record<Era, string> = { '2026': '2026-07-28', '2025': '2025-06-18' };

const list = (kadu: KaduTestApp, token: string, era: Era = '2026', id: string | number = 'x') => {
  const r = era === '2026' ? modernRequest('tools/list', {}, { id }) : legacyRequest('tools/list', {}, { id });
  return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};

/** Moves Date.now forward by `ms` (cumulative) until restored. */
function clock(): { advance(ms: number): void; restore(): void } {
  const real = Date.now.bind(Date);
  let offset = 0;
  let spy: MockInstance | undefined;
  return {
    advance(ms) {
      offset += ms;
      spy ??= vi.spyOn(Date, 'now').mockImplementation(() => real() + offset);
    },
    restore() {
      spy?.mockRestore();
      spy = undefined;
      offset = 0;
    },
  };
}

describe.each(ERAS)('budgets, %s era (rung 10)', (era) => {
  let kadu: KaduTestApp;
  const time = clock();
  beforeAll(async () => {
    kadu = await startKadu(IN_MEMORY);
  });
  afterAll(() => kadu.close());
  afterEach(() => time.restore());

  it('a burst over the limit gets 429 with the request id, Retry-After and RateLimit headers; the next window lets it through', async () => {
    const token = await kadu.token({ user: `burst-${era}@acme.test` });
    for (let i = 0; i < 5; i++) {
      const ok = await list(kadu, token, era);
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('5');
      expect(ok.headers['ratelimit-remaining']).toBe(String(4 - i));
      expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(ok.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      expect(ok.headers['retry-after']).toBeUndefined();
    }
    const refused = await list(kadu, token, era, 77);
    expect(refused.status).toBe(429);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['mcp-protocol-version']).toBe(VERSION[era]);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(refused.body).toEqual({
      jsonrpc: '2.0',
      id: 77,
      error: { code: -32600, message: expect.any(String), data: { retry_after: retryAfter } },
    });
    // Still refused just before the window ends, let through once it has.
    time.advance((retryAfter - 1) * 1000);
    expect((await list(kadu, token, era)).status).toBe(429);
    time.advance(1000 + 1);
    const again = await list(kadu, token, era);
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('4');
  });

  it('two principals do not share a budget', async () => {
    const a = await kadu.token({ user: `a-${era}@acme.test` });
    const b = await kadu.token({ user: `b-${era}@acme.test` });
    for (let i = 0; i < 5; i++) expect((await list(kadu, a, era)).status).toBe(200);
    expect((await list(kadu, a, era)).status).toBe(429);
    expect((await list(kadu, b, era)).status).toBe(200);
  });

  it('REST and MCP spend one budget per principal', async () => {
    const user = `both-${era}@acme.test`;
    const rest = new KaduClient(kadu, { user });
    for (let i = 0; i < 3; i++) expect((await rest.rest('get', '/api/v1/me')).status).toBe(200);
    const token = await kadu.token({ user });
    expect((await list(kadu, token, era)).status).toBe(200);
    expect((await list(kadu, token, era)).status).toBe(200);
    expect((await list(kadu, token, era)).status).toBe(429);
    const restRefused = await rest.rest('get', '/api/v1/me');
    expect(restRefused.status).toBe(429);
    expect(restRefused.body.errors[0].code).toBe('rate_limited');
    expect(restRefused.headers['retry-after']).toMatch(/^\d+$/);
    expect(restRefused.headers['ratelimit-reset']).toBe(restRefused.headers['retry-after']);
  });

  it('writes have a tighter budget than reads, and a refused write stores nothing', async () => {
    const writer = new KaduClient(kadu, { user: `writer-${era}@acme.test` });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      codes.push(
        (
          await writer.mcp(era, 'tools/call', {
            name: 'kadu_tasks_create',
            arguments: { name: `w-${era}-${i}`, kind: 'echo', cost_cap: 1 },
          })
        ).status,
      );
    }
    expect(codes).toEqual([200, 200, 200, 429]);
    // Reads still have room (the general budget is 5: four spent).
    expect((await writer.mcp(era, 'tools/call', { name: 'kadu_tasks_list', arguments: {} })).status).toBe(200);
    time.advance(61_000);
    const names = (await writer.rest('get', '/api/v1/tasks?limit=100')).body.data.map((t: { name: string }) => t.name);
    expect(names.filter((n: string) => n.startsWith(`w-${era}-`)).sort()).toEqual([
      `w-${era}-0`,
      `w-${era}-1`,
      `w-${era}-2`,
    ]);
  });
});

describe('failed logins (rung 3 budget per address)', () => {
  let kadu: KaduTestApp;
  const time = clock();
  beforeAll(async () => {
    kadu = await startKadu(IN_MEMORY);
  });
  afterAll(() => kadu.close());
  afterEach(() => time.restore());

  it('invalid tokens are slowed down in both doors and both eras, a valid token from the address is never refused, and the address recovers when the window ends', async () => {
    const bad = () => request(kadu.server).get('/api/v1/me').set('Authorization', 'Bearer guess');
    for (let i = 0; i < 3; i++) expect((await bad()).status).toBe(401);
    const slowed = await bad();
    expect(slowed.status).toBe(429);
    const retryAfter = Number(slowed.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(slowed.body.errors[0].code).toBe('rate_limited');
    for (const era of ERAS) {
      const refused = await list(kadu, 'guess', era, 9);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(retryAfter);
      expect(refused.headers['mcp-protocol-version']).toBe(VERSION[era]);
      // Refused with authentication (rung 3), before the body is read: no id yet.
      expect(refused.body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, data: { retry_after: Number(refused.headers['retry-after']) } },
      });
    }
    // Someone else behind the same address (a NAT, a gateway) with a valid token is not locked out.
    const token = await kadu.token({ user: 'victim@acme.test' });
    for (const era of ERAS) expect((await list(kadu, token, era)).status).toBe(200);
    time.advance(retryAfter * 1000 + 1);
    expect((await bad()).status).toBe(401);
  });
});

const withRedis = requires(await redis());
const withPostgres = requires(await postgres());

withRedis.describe('budgets across replicas', () => {
  it('two app instances on one Redis share the budget', async () => {
    const env = { ...LIMITS, REDIS_URL, REDIS_PREFIX: `kadu-rl-${randomBytes(6).toString('hex')}:` };
    const a = await startKadu(env);
    const b = await startKadu({ ...env, DATA_DIR: a.config.dataDir });
    try {
      const token = await a.token({ user: 'shared@acme.test' });
      for (let i = 0; i < 3; i++) expect((await list(a, token)).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await list(b, token, '2025')).status).toBe(200);
      const refused = await list(b, token);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect((await list(a, token, '2025')).status).toBe(429);
    } finally {
      await b.close({ keepData: true });
      await a.close();
    }
  });
});

describe('dependency failures answer 503 with Retry-After and recover by themselves', () => {
  withRedis.it('Redis (the MCP state store) away and back', async () => {
    const target = new URL(REDIS_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    // A short bound on Redis calls: each refused call below waits for it.
    const kadu = await startKadu({
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_PREFIX: `kadu-fault-${randomBytes(6).toString('hex')}:`,
      KADU_DEPENDENCY_TIMEOUT_MS: '1500',
    });
    try {
      const token = await kadu.token();
      for (const era of ERAS) expect((await list(kadu, token, era)).status).toBe(200);
      expect((await request(kadu.server).get('/health/ready')).status).toBe(200);
      await proxy.stop();
      for (const era of ERAS) {
        const down = await list(kadu, token, era, 5);
        expect(down.status).toBe(503);
        expect(down.headers['retry-after']).toBe('5');
        expect(down.headers['cache-control']).toBe('no-store');
        expect(down.headers['mcp-protocol-version']).toBe(VERSION[era]);
        // A valid token passes authentication without the store; the general budget (rung 10) needs it, after the body is read.
        expect(down.body).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32603, data: { retry_after: 5 } } });
      }
      const ready = await request(kadu.server).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toEqual({ database: 'up', state_store: 'down' });
      expect((await request(kadu.server).get('/health/live')).status).toBe(200);
      const rest = await new KaduClient(kadu).rest('get', '/api/v1/me');
      expect(rest.status).toBe(503);
      await proxy.start();
      await eventually(
        'MCP answers again',
        async () => (await list(kadu, token)).status,
        (s) => s === 200,
      );
      expect((await list(kadu, token, '2025')).status).toBe(200);
      expect((await request(kadu.server).get('/health/ready')).status).toBe(200);
    } finally {
      await kadu.close();
      await proxy.stop();
    }
  });

  withPostgres.it('PostgreSQL away and back', async () => {
    const target = new URL(PG_URL);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const url = new URL(PG_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const schema = `kadu_fault_${randomBytes(6).toString('hex')}`;
    const kadu = await startKadu({ DATABASE_URL: url.toString(), DATABASE_SCHEMA: schema });
    try {
      const client = new KaduClient(kadu);
      expect((await client.rest('get', '/api/v1/tasks')).status).toBe(200);
      await proxy.stop();
      const rest = await client.rest('get', '/api/v1/tasks');
      expect(rest.status).toBe(503);
      expect(rest.headers['retry-after']).toBe('5');
      expect(rest.body.errors[0].code).toBe('database_unavailable');
      for (const era of ERAS) {
        const mcp = await client.mcp(era, 'tools/call', { name: 'kadu_tasks_list', arguments: {} });
        expect(mcp.status).toBe(503);
        expect(mcp.headers['retry-after']).toBe('5');
        expect(mcp.headers['mcp-protocol-version']).toBe(VERSION[era]);
        expect(mcp.body).toMatchObject({
          jsonrpc: '2.0',
          id: expect.any(Number),
          error: { code: -32603, data: { retry_after: 5 } },
        });
      }
      const ready = await request(kadu.server).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('down');
      await proxy.start();
      await eventually(
        'the API answers again',
        async () => (await client.rest('get', '/api/v1/tasks')).status,
        (s) => s === 200,
      );
      expect((await request(kadu.server).get('/health/ready')).status).toBe(200);
    } finally {
      if (!proxy.running) await proxy.start();
      await kadu.close();
      await proxy.stop();
      const db = new pg.Client({ connectionString: PG_URL });
      await db.connect();
      await db.query(`drop schema if exists ${schema} cascade`);
      await db.end();
    }
  });
});

describe('a saturated execution queue', () => {
  it('answers 503 with Retry-After instead of accepting more runs, and stores no execution', async () => {
    const kadu = await startKadu({ KADU_QUEUE_MAX_DEPTH: '0' });
    try {
      const client = new KaduClient(kadu);
      const task = (await client.rest('post', '/api/v1/tasks', { name: 't', kind: 'echo', cost_cap: 1 })).body.data;
      const res = await client.rest('post', `/api/v1/tasks/${task.id}/run`, {});
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('10');
      expect(res.body.errors[0].code).toBe('queue_saturated');
      expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toEqual([]);
    } finally {
      await kadu.close();
    }
  });
});
