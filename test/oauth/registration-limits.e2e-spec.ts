import request from 'supertest';
import { type KaduTestApp, startKadu } from '../support/kadu-app.js';

/**
 * Open dynamic registration (RFC 7591) at the development authorization server, tried as an
 * anonymous client would: a burst from one address, oversized requests, a count of clients that
 * cannot grow without bound, and the redirect URIs OAuth 2.1 and the MCP authorization spec allow.
 * Client addresses are given in X-Forwarded-For (the app trusts it from loopback, as behind a
 * proxy). The distributed pass runs the same budgets on Redis; test/replicas/oauth spreads a burst
 * over two replicas.
 */
const MAX_CLIENTS = 30;
let kadu: KaduTestApp;
/** Clients this file registered: the count the server holds. */
let registered = 0;

beforeAll(async () => {
  kadu = await startKadu({ OAUTH_DEV_MAX_CLIENTS: String(MAX_CLIENTS) });
}, 120_000);
afterAll(() => kadu?.close());

async function register(from: string, metadata: Record<string, unknown>) {
  const res = await request(kadu.server)
    .post('/oauth/reg')
    .set('X-Forwarded-For', from)
    .send({ token_endpoint_auth_method: 'none', ...metadata });
  if (res.status === 201) registered++;
  return res;
}

const client = (redirect_uris: string[], extra: Record<string, unknown> = {}) => ({
  client_name: 'Registration Limits Test',
  redirect_uris,
  ...extra,
});

describe('client registration limits', () => {
  it('a registration burst from one address: 20 registered, the rest 429 with Retry-After; another address still registers', async () => {
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await register('203.0.113.10', client(['https://burst.example/cb'])));
    expect(answers.map((a) => a.status)).toEqual([...Array(20).fill(201), ...Array(10).fill(429)]);
    const refused = answers.at(-1)!;
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['ratelimit-limit']).toBe('20');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(refused.body).toEqual({
      error: 'rate_limited',
      error_description: `too many client registrations from this address; retry after ${retryAfter} s`,
    });
    expect((await register('203.0.113.11', client(['https://burst.example/cb']))).status).toBe(201);
  });

  it('a registration larger than 8 KiB, or of unstated length, is refused with invalid_client_metadata and nothing is stored', async () => {
    const big = await register('203.0.113.12', client(['https://big.example/cb'], { client_name: 'x'.repeat(9000) }));
    expect(big.status).toBe(400);
    expect(big.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'a registration request is at most 8192 bytes, with its Content-Length stated',
    });
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(kadu.server)
        .post('/oauth/reg')
        .set('Content-Type', 'application/json')
        .set('Transfer-Encoding', 'chunked');
      req.write(JSON.stringify(client(['https://big.example/cb'])));
      req.end((error, res) => (error ? reject(error) : resolve({ status: res.status, body: res.text })));
    });
    expect(chunked.status).toBe(400);
    expect(JSON.parse(chunked.body).error).toBe('invalid_client_metadata');
  });

  it('a plain-http redirect URI to a non-loopback host is refused with invalid_redirect_uri, whatever the application_type', async () => {
    for (const extra of [{}, { application_type: 'web' }, { application_type: 'native' }]) {
      const res = await register('203.0.113.20', client(['http://attacker.example/cb'], extra));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
      expect(res.body.error_description).toMatch(/^redirect_uris must use https, or http only on a loopback address/);
    }
    for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'ws://attacker.example/cb']) {
      const res = await register('203.0.113.20', client([uri]));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
    }
  });

  it('https, loopback http (any port) and a native app private-use scheme (RFC 8252) are accepted', async () => {
    const loopback = await register(
      '203.0.113.21',
      client(['http://localhost:33418/callback', 'http://127.0.0.1:8080/cb', 'http://[::1]:9/cb']),
    );
    expect(loopback.status).toBe(201);
    const web = await register('203.0.113.21', client(['https://claude.ai/api/mcp/auth_callback']));
    expect(web.status).toBe(201);
    const native = await register(
      '203.0.113.21',
      client(['com.example.app:/oauth2redirect', 'cursor://anysphere.cursor-retrieval/oauth/callback']),
    );
    expect(native.status).toBe(201);
    expect(native.body).toMatchObject({
      application_type: 'native',
      redirect_uris: ['com.example.app:/oauth2redirect', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
    });
  });

  it(`registration is capped in count: past ${MAX_CLIENTS} clients, 429 with Retry-After, from any address`, async () => {
    const room = MAX_CLIENTS - registered;
    expect(room).toBeGreaterThan(0);
    for (let i = 0; i < room; i++)
      expect((await register(`198.51.100.${i + 1}`, client(['https://count.example/cb']))).status).toBe(201);
    const full = await register('198.51.100.200', client(['https://count.example/cb']));
    expect(full.status).toBe(429);
    const retryAfter = Number(full.headers['retry-after']);
    // The count lasts a client's lifetime (14 days) from the first registration.
    expect(retryAfter).toBeGreaterThan(13 * 24 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(14 * 24 * 3600);
    expect(full.body).toEqual({
      error: 'rate_limited',
      error_description: `this development authorization server holds its ${MAX_CLIENTS} registered clients; reuse one, or retry after ${retryAfter} s`,
    });
    expect(registered).toBe(MAX_CLIENTS);
  });
});
