import request from 'supertest';
import type { MockInstance } from 'vitest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { newId } from '../../src/common/ids.js';
import { DATABASE, type Database } from '../../src/db/database.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, type Era } from '../support/kadu-client.js';
import { JwksServer } from '../support/jwks-server.js';
import { oneConnection } from '../support/one-connection.js';

/**
 * The production token path (libs/mcp/docs/security.md §Authentication), end to end: Kadu configured with
 * OAUTH_ISSUER / OAUTH_JWKS_URL, verifying tokens against a JWKS it fetches over HTTP from a
 * stand-in authorization server. Every refusal is checked in both eras.
 */
const VERSION: Record<Era, string> = { '2026': '2026-07-28', '2025': '2025-06-18' };

async function production(jwks: JwksServer, env: Record<string, string> = {}): Promise<KaduTestApp> {
  const kadu = await startKadu({
    OAUTH_ISSUER: jwks.issuer,
    OAUTH_JWKS_URL: jwks.url,
    OAUTH_JWKS_TIMEOUT_MS: '300',
    ...env,
  });
  // Production mode provisions nobody: the organisation and its member exist beforehand.
  const db = kadu.app.get(DATABASE) as Database;
  const orgId = newId();
  await db.query(
    `insert into organizations (id, slug, name, plan_name, monthly_budget, max_concurrent_executions) values ($1, 'acme', 'Acme', 'starter', 1000, 2)`,
    [orgId],
  );
  await db.query(
    `insert into members (id, org_id, email, name, role, status) values ($1, $2, 'ana@acme.test', 'Ana', 'admin', 'active')`,
    [newId(), orgId],
  );
  return kadu;
}

const mcp = (
  kadu: KaduTestApp,
  token: string,
  era: Era,
  method = 'tools/list',
  params: Record<string, unknown> = {},
) => {
  const r = era === '2026' ? modernRequest(method, params, { id: 'p' }) : legacyRequest(method, params, { id: 'p' });
  return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};

function expectAccepted(res: request.Response): void {
  expect(res.status, res.text).toBe(200);
  expect(res.body.id).toBe('p');
  expect(res.body.result.tools.map((t: { name: string }) => t.name)).toContain('kadu_tasks_list');
}

function expectRefused(res: request.Response, reason: RegExp, era: Era): void {
  expect(res.status, res.text).toBe(401);
  const challenge = res.headers['www-authenticate'] as string;
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['mcp-protocol-version']).toBe(VERSION[era]);
  expect(res.body.error).toBe('invalid_token');
  expect(res.body.error_description).toMatch(reason);
}

function expectKeysUnavailable(res: request.Response, era: Era): void {
  expect(res.status, res.text).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['mcp-protocol-version']).toBe(VERSION[era]);
  expect(res.headers['www-authenticate']).toBeUndefined();
  // Issue 14: a 503 at authentication still reads the body, so it carries the request's id.
  expect(res.body).toEqual({
    jsonrpc: '2.0',
    id: 'p',
    error: { code: -32603, message: expect.stringContaining('authorization server'), data: { retry_after: 5 } },
  });
}

describe.each(ERAS)('production tokens, %s era', (era) => {
  describe('one key set', () => {
    const jwks = new JwksServer();
    let kadu: KaduTestApp;
    let aud: string;
    beforeAll(async () => {
      await jwks.addKey('k1');
      await jwks.addKey('stray', { publish: false });
      await jwks.start();
      kadu = await production(jwks);
      aud = kadu.config.mcpAudience;
    });
    afterAll(async () => {
      await kadu.close();
      await jwks.stop();
    });

    it('a token signed by a published key, for this issuer and audience, is accepted and is who it says', async () => {
      const token = await jwks.sign('k1', aud);
      expectAccepted(await mcp(kadu, token, era));
      const me = await mcp(kadu, token, era, 'tools/call', { name: 'kadu_me_get', arguments: {} });
      expect(me.status).toBe(200);
      const body = JSON.parse(me.body.result.content[0].text);
      expect(body.data).toMatchObject({
        organization: { slug: 'acme' },
        member: { email: 'ana@acme.test', role: 'admin' },
      });
      expect(jwks.fetches).toBeGreaterThanOrEqual(1);
    });

    it('a wrong issuer is refused', async () => {
      expectRefused(
        await mcp(kadu, await jwks.sign('k1', aud, {}, { issuer: 'https://evil.example' }), era),
        /not issued by the expected authorization server/,
        era,
      );
    });

    it('a wrong audience is refused: the REST API, or another resource', async () => {
      expectRefused(await mcp(kadu, await jwks.sign('k1', kadu.config.apiAudience), era), /audience/, era);
      expectRefused(await mcp(kadu, await jwks.sign('k1', 'https://other.example/mcp'), era), /audience/, era);
    });

    it('a key id the key set does not publish is refused', async () => {
      expectRefused(await mcp(kadu, await jwks.sign('stray', aud), era), /signature is not valid/, era);
    });

    it('a token without a subject is refused', async () => {
      expectRefused(await mcp(kadu, await jwks.sign('k1', aud, {}, { subject: null }), era), /no subject/, era);
    });

    it('a token naming no valid organisation is refused', async () => {
      expectRefused(await mcp(kadu, await jwks.sign('k1', aud, { org: undefined }), era), /no valid organisation/, era);
      expectRefused(await mcp(kadu, await jwks.sign('k1', aud, { org: '../acme' }), era), /no valid organisation/, era);
    });

    it('an organisation Kadu does not know is not provisioned: its calls answer 403 unknown_member', async () => {
      const token = await jwks.sign('k1', aud, { org: 'initech' }, { subject: 'peter@initech.test' });
      const res = await mcp(kadu, token, era, 'tools/call', { name: 'kadu_tasks_list', arguments: {} });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      expect(JSON.parse(res.body.result.content[0].text)).toEqual({
        status: 403,
        errors: [expect.objectContaining({ code: 'unknown_member' })],
      });
      const db = kadu.app.get(DATABASE) as Database;
      expect(await db.query(`select 1 from organizations where slug = 'initech'`)).toEqual([]);
    });

    it('an invalid role is refused', async () => {
      expectRefused(await mcp(kadu, await jwks.sign('k1', aud, { role: 'superuser' }), era), /no valid role/, era);
      expectRefused(await mcp(kadu, await jwks.sign('k1', aud, { role: undefined }), era), /no valid role/, era);
    });
  });

  describe('a rotated key', () => {
    const jwks = new JwksServer();
    let kadu: KaduTestApp;
    let spy: MockInstance | undefined;
    beforeAll(async () => {
      await jwks.addKey('old');
      await jwks.start();
      kadu = await production(jwks);
    });
    afterAll(async () => {
      spy?.mockRestore();
      await kadu.close();
      await jwks.stop();
    });

    it('the old key is refused and the new one accepted once the key set is refreshed', async () => {
      const aud = kadu.config.mcpAudience;
      const oldToken = await jwks.sign('old', aud);
      expectAccepted(await mcp(kadu, oldToken, era));
      await jwks.addKey('new');
      jwks.unpublish('old');
      const newToken = await jwks.sign('new', aud);
      // The key set is re-fetched for an unknown key id at most every 30 s (jose's cooldown, which
      // keeps token floods off the authorization server): move the clock past it.
      const fetched = jwks.fetches;
      const real = Date.now.bind(Date);
      spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + 31_000);
      expectAccepted(await mcp(kadu, newToken, era));
      expect(jwks.fetches).toBe(fetched + 1);
      expectRefused(await mcp(kadu, oldToken, era), /signature is not valid/, era);
    });
  });

  describe('a rotated key, on a kept-alive connection', () => {
    const jwks = new JwksServer();
    let kadu: KaduTestApp;
    let spy: MockInstance | undefined;
    beforeAll(async () => {
      await jwks.addKey('old');
      await jwks.start();
      kadu = await production(jwks);
    });
    afterAll(async () => {
      spy?.mockRestore();
      await kadu.close();
      await jwks.stop();
    });

    it('a withdrawn key stops opening the door on the connection that used it, once another request refreshed the key set', async () => {
      const aud = kadu.config.mcpAudience;
      const oldToken = await jwks.sign('old', aud);
      const kept = await oneConnection(kadu.server);
      const other = await oneConnection(kadu.server);
      const send = (conn: typeof kept, token: string) => {
        const r =
          era === '2026' ? modernRequest('tools/list', {}, { id: 'p' }) : legacyRequest('tools/list', {}, { id: 'p' });
        return conn.send('POST', '/mcp', { ...r.headers, authorization: `Bearer ${token}` }, r.body);
      };
      try {
        expect((await send(kept, oldToken)).status).toBe(200);
        expect((await send(kept, oldToken)).status).toBe(200);
        await jwks.addKey('new');
        jwks.unpublish('old');
        const real = Date.now.bind(Date);
        spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + 31_000);
        const fetched = jwks.fetches;
        // Another client's token under the new key makes the verifier fetch the key set again.
        expect((await send(other, await jwks.sign('new', aud))).status).toBe(200);
        expect(jwks.fetches).toBe(fetched + 1);
        const refused = await send(kept, oldToken);
        expect(refused.status, refused.text).toBe(401);
        expect(refused.body.error_description).toMatch(/signature is not valid/);
      } finally {
        kept.close();
        other.close();
      }
    });
  });

  describe('the key server down, then back', () => {
    const jwks = new JwksServer();
    let kadu: KaduTestApp;
    beforeAll(async () => {
      await jwks.addKey('k1');
      await jwks.start();
      kadu = await production(jwks, { KADU_RATE_FAILED_AUTH: '2/60' });
      await jwks.stop();
    });
    afterAll(async () => {
      await kadu.close();
      await jwks.stop();
    });

    it('answers 503 with Retry-After (not 401: the token may be fine), spends no failed-login budget, and recovers', async () => {
      const token = await jwks.sign('k1', kadu.config.mcpAudience);
      for (let i = 0; i < 4; i++) expectKeysUnavailable(await mcp(kadu, token, era), era);
      await jwks.start();
      expectAccepted(await mcp(kadu, token, era));
    });
  });

  describe('the key server slow', () => {
    const jwks = new JwksServer();
    let kadu: KaduTestApp;
    beforeAll(async () => {
      await jwks.addKey('k1');
      await jwks.start();
      kadu = await production(jwks);
    });
    afterAll(async () => {
      await kadu.close();
      await jwks.stop();
    });

    it('answers 503 once OAUTH_JWKS_TIMEOUT_MS has passed, without hanging, and recovers', async () => {
      const token = await jwks.sign('k1', kadu.config.mcpAudience);
      jwks.silent = true;
      const started = performance.now();
      const [a, b] = await Promise.all([mcp(kadu, token, era), mcp(kadu, token, era)]);
      // A real network is involved: a generous bound, far below a hang (the timeout is 300 ms).
      expect(performance.now() - started).toBeLessThan(10_000);
      expectKeysUnavailable(a, era);
      expectKeysUnavailable(b, era);
      jwks.silent = false;
      expectAccepted(await mcp(kadu, token, era));
    });
  });
});

describe('production tokens through the REST door', () => {
  const jwks = new JwksServer();
  let kadu: KaduTestApp;
  beforeAll(async () => {
    await jwks.addKey('k1');
    await jwks.start();
    kadu = await production(jwks);
  });
  afterAll(async () => {
    await kadu.close();
    await jwks.stop();
  });

  const me = (token: string) => request(kadu.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);

  it('accepts the API audience and refuses the MCP one, a wrong issuer and a missing subject', async () => {
    expect((await me(await jwks.sign('k1', kadu.config.apiAudience))).body.data).toMatchObject({
      member: { email: 'ana@acme.test' },
    });
    for (const token of [
      await jwks.sign('k1', kadu.config.mcpAudience),
      await jwks.sign('k1', kadu.config.apiAudience, {}, { issuer: 'https://evil.example' }),
      await jwks.sign('k1', kadu.config.apiAudience, {}, { subject: null }),
    ]) {
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('unauthorized');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('answers 503 service_unavailable while the key server is down', async () => {
    const token = await jwks.sign('k1', kadu.config.apiAudience);
    await jwks.stop();
    const real = Date.now.bind(Date);
    // The key set cached by the first test is fresh for 10 minutes: a new key id, past jose's 30 s
    // cooldown, forces a fetch.
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + 31_000);
    try {
      await jwks.addKey('k2');
      const res = await me(await jwks.sign('k2', kadu.config.apiAudience));
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.errors[0].code).toBe('service_unavailable');
      // What was fetched before still verifies the tokens it covers.
      expect((await me(token)).status).toBe(200);
    } finally {
      spy.mockRestore();
      await jwks.start();
    }
  });
});
