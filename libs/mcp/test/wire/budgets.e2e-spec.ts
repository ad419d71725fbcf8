import { createServer, type Server as NetServer, type Socket } from 'node:net';
import request from 'supertest';
import type { MockInstance } from 'vitest';
import { RedisStateStore } from '@kobana/nest-mcp/redis';
import { expectRpcError, expectRpcResult, legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startWireApp, type WireApp } from '../fixtures/wire-app/start.js';

/**
 * docs/ladder.md §2 rung 10 (the caller's budgets; the store that keeps them unreachable) and the
 * rung-15 answers that are not -32602: the app's own 503, and a target hidden only by a scope.
 * Windows are a minute long, so that no request crosses one by accident; the test that needs a
 * window to end moves the clock the in-memory limiter reads (Date.now) instead of waiting.
 */
type Era = '2026' | '2025';
const ERAS: Era[] = ['2026', '2025'];
const VERSION: Record<Era, string> = { '2026': '2026-07-28', '2025': '2025-06-18' };
const build = (era: Era, method: string, params: Record<string, unknown> = {}, id: string | number = 'b') =>
  era === '2026' ? modernRequest(method, params, { id }) : legacyRequest(method, params, { id });

function send(
  w: WireApp,
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
  token = 'reader-token',
  id: string | number = 'b',
) {
  const r = build(era, method, params, id);
  return request(w.url).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
}

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

describe.each(ERAS)('rung 10: budgets, %s era', (era) => {
  let w: WireApp;
  const time = clock();
  beforeAll(async () => {
    w = await startWireApp({
      rateLimits: {
        general: { points: 3, durationSec: 60 },
        writes: { points: 1, durationSec: 60 },
        failedAuth: false,
      },
    });
  });
  afterAll(() => w.close());
  afterEach(() => time.restore());

  it('a burst over the limit gets 429 with Retry-After and RateLimit headers; the next window lets it through', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await send(w, era, 'tools/list');
      expect(ok.status).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('3');
      expect(ok.headers['ratelimit-remaining']).toBe(String(2 - i));
      expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(ok.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      expect(ok.headers['retry-after']).toBeUndefined();
    }
    const refused = await send(w, era, 'tools/list', {}, 'reader-token', 77);
    const error = expectRpcError(refused, 429, -32600, 77);
    expect(refused.headers['mcp-protocol-version']).toBe(VERSION[era]);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(error.data).toEqual({ retry_after: retryAfter });
    // Another principal has a budget of its own.
    expect((await send(w, era, 'tools/list', {}, 'auditor-token')).status).toBe(200);
    // Still refused just before the window ends, let through once it has.
    time.advance((retryAfter - 1) * 1000);
    expect((await send(w, era, 'tools/list')).status).toBe(429);
    time.advance(1000 + 1);
    const again = await send(w, era, 'tools/list');
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('2');
  });

  it('a tool that writes also spends the tighter write budget, and a refused write does not run', async () => {
    time.advance(61_000); // a fresh window for both budgets
    const first = await send(
      w,
      era,
      'tools/call',
      { name: 'order_submit', arguments: { item: `a-${era}` } },
      'auditor-token',
      1,
    );
    expect(expectRpcResult(first, 1).isError).toBeUndefined();
    const second = await send(
      w,
      era,
      'tools/call',
      { name: 'order_submit', arguments: { item: `b-${era}` } },
      'auditor-token',
      2,
    );
    expectRpcError(second, 429, -32600, 2);
    expect(w.service.submitted).toEqual([`a-${era}`]);
    // Reads still have room in the general budget (3: two spent).
    expect((await send(w, era, 'tools/call', { name: 'status_get', arguments: {} }, 'auditor-token')).status).toBe(200);
  });
});

/** A TCP server that accepts connections and never answers: a dependency that hangs. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: NetServer = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (the connection is refused). */
async function closedPort(): Promise<number> {
  const probe = await silentServer();
  await probe.close();
  return probe.port;
}

describe('rung 10: a budget of billions (src/state/fresh-decimal.ts writes the remaining count)', () => {
  let w: WireApp;
  beforeAll(async () => {
    w = await startWireApp({ rateLimits: { general: { points: 1_234_567_890, durationSec: 60 }, failedAuth: false } });
  });
  afterAll(() => w.close());

  it('counts down in plain decimal digits, call after call, at both eras', async () => {
    const seen: string[] = [];
    for (const era of ERAS) {
      for (let i = 0; i < 2; i++) {
        const ok = await send(w, era, 'tools/list');
        expect(ok.status).toBe(200);
        expect(ok.headers['ratelimit-limit']).toBe('1234567890');
        seen.push(ok.headers['ratelimit-remaining']);
      }
    }
    expect(seen).toEqual(['1234567889', '1234567888', '1234567887', '1234567886']);
  });
});

describe('rung 10: the store that keeps the budgets cannot be asked', () => {
  it.each([
    ['refuses connections', async () => ({ port: await closedPort(), close: async () => undefined })],
    ['accepts and never answers', silentServer],
  ])(
    'Redis %s: every era answers 503 -32603 with Retry-After within the bound, never an unchecked pass',
    async (_what, dependency) => {
      const redis = await dependency();
      const store = new RedisStateStore(`redis://127.0.0.1:${redis.port}`, 'wire:', { timeoutMs: 500 });
      const w = await startWireApp({ stateStore: store, rateLimits: { general: { points: 100, durationSec: 60 } } });
      try {
        for (const era of ERAS) {
          const started = performance.now();
          const down = await send(
            w,
            era,
            'tools/call',
            { name: 'order_submit', arguments: { item: 'x' } },
            'reader-token',
            5,
          );
          // Bounded by the store's timeout, with room for a loaded machine; never a hang.
          expect(performance.now() - started).toBeLessThan(5_000);
          const error = expectRpcError(down, 503, -32603, 5);
          expect(down.headers['retry-after']).toBe('5');
          expect(down.headers['mcp-protocol-version']).toBe(VERSION[era]);
          expect(error.data).toEqual({ retry_after: 5 });
          expect(error.message).toMatch(/rate-limit store/);
        }
        expect(w.service.submitted).toEqual([]);
      } finally {
        await w.close();
        await store.close();
        await redis.close();
      }
    },
  );
});

describe.each(ERAS)('rung 15, %s era', (era) => {
  let w: WireApp;
  beforeAll(async () => {
    w = await startWireApp();
  });
  afterAll(() => w.close());

  it("the app's method answers 503 (its dependency is down): the whole request answers 503 -32603 with Retry-After", async () => {
    const res = await send(w, era, 'tools/call', { name: 'depot_stock', arguments: {} }, 'reader-token', 'd');
    const error = expectRpcError(res, 503, -32603, 'd');
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['mcp-protocol-version']).toBe(VERSION[era]);
    expect(error.data).toEqual({ retry_after: 5 });
  });

  it('a tool hidden only by a missing scope answers 403 with a step-up challenge; with the scope it runs', async () => {
    const res = await send(w, era, 'tools/call', { name: 'report_get', arguments: {} }, 'reader-token');
    expect(res.status).toBe(403);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", error_description="The token lacks the scope(s) needed for report_get: reports.read", ' +
        'scope="reports.read", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"',
    );
    expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'reports.read' });
    const list = expectRpcResult(await send(w, era, 'tools/list', {}, 'reader-token', 'l'), 'l');
    expect((list.tools as { name: string }[]).map((t) => t.name)).not.toContain('report_get');
    const allowed = expectRpcResult(
      await send(w, era, 'tools/call', { name: 'report_get', arguments: {} }, 'auditor-token', 'a'),
      'a',
    );
    expect(allowed.isError).toBeUndefined();
  });
});
