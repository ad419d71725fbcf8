import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { APP_ENTRY } from '../../scripts/app-entry.mjs';
import { loadConfig } from '../../src/config/app-config.js';
import { launchChromium } from '../support/browser.js';
import { chromium, requires } from '../support/infrastructure.js';
import { JwksServer } from '../support/jwks-server.js';
import { startKadu, startKaduOnFreePort, type KaduTestApp, type ListeningKaduApp } from '../support/kadu-app.js';
import { CallbackServer, connectThroughBrowser } from '../support/oauth-client.js';

/** The development authorization server never runs in production unless explicitly allowed, and production never trusts its tokens. */
describe('when the development authorization server runs', () => {
  const base = { DATA_DIR: '/tmp/unused', PORT: '3000' };
  it('on by default in development, with development tokens', () => {
    expect(loadConfig({ ...base }).devAuthServer).toBe(true);
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).devAuthServer).toBe(true);
    expect(loadConfig({ ...base, OAUTH_DEV_SERVER: 'off' }).devAuthServer).toBe(false);
  }, 60_000);

  it('off with a real authorization server, and refused if asked for', () => {
    const real = { ...base, OAUTH_ISSUER: 'https://login.example', OAUTH_JWKS_URL: 'https://login.example/jwks' };
    expect(loadConfig(real).devAuthServer).toBe(false);
    expect(() => loadConfig({ ...real, OAUTH_DEV_SERVER: 'on' })).toThrow(
      'OAUTH_DEV_SERVER=on needs development tokens',
    );
  }, 60_000);

  it('off in production even with development tokens allowed; on there only when explicitly allowed', () => {
    const prod = { ...base, NODE_ENV: 'production', ALLOW_DEV_TOKENS: 'true' };
    expect(loadConfig(prod).devAuthServer).toBe(false);
    expect(() => loadConfig({ ...prod, OAUTH_DEV_SERVER: 'on' })).toThrow(
      'Refusing to start in production with the development authorization server: set ALLOW_DEV_AUTHORIZATION_SERVER=true to allow it, or OAUTH_DEV_SERVER=off',
    );
    expect(loadConfig({ ...prod, OAUTH_DEV_SERVER: 'on', ALLOW_DEV_AUTHORIZATION_SERVER: 'true' }).devAuthServer).toBe(
      true,
    );
    expect(() => loadConfig({ ...base, OAUTH_DEV_SERVER: 'maybe' })).toThrow(
      "OAUTH_DEV_SERVER must be on, off or auto, got 'maybe'",
    );
  }, 60_000);

  it('the app refuses to start in production with it, saying why', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kadu-prod-'));
    const { NODE_OPTIONS: _n, ...inherited } = process.env;
    const run = spawnSync(process.execPath, [APP_ENTRY], {
      env: {
        ...inherited,
        NODE_ENV: 'production',
        ALLOW_DEV_TOKENS: 'true',
        OAUTH_DEV_SERVER: 'on',
        PORT: '0',
        DATA_DIR: dataDir,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    rmSync(dataDir, { recursive: true, force: true });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Refusing to start in production with the development authorization server');
  }, 60_000);
});

describe('production refuses what the development authorization server issues', () => {
  let dev: ListeningKaduApp;
  let prod: KaduTestApp;
  const jwks = new JwksServer();
  const withBrowser = requires(chromium());
  let browser: Browser | undefined;
  let callback: CallbackServer;
  let devUrl: string;

  beforeAll(async () => {
    dev = await startKaduOnFreePort();
    devUrl = dev.base;
    // The real authorization server's keys, which production trusts instead.
    await jwks.addKey('real-as');
    await jwks.start();
    // Same public URL and issuer as the development app: only the trusted keys differ.
    prod = await startKadu({
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: devUrl,
      OAUTH_ISSUER: devUrl,
      OAUTH_JWKS_URL: jwks.url,
      MCP_STATE_KEY: 'production-test-state-key-0123456789abcdef',
    });
    callback = await new CallbackServer().start();
    if (!withBrowser.missing) browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), callback?.stop(), jwks.stop()]);
    await Promise.all([dev?.close(), prod?.close()]);
  }, 60_000);

  it('has no authorization server, no sign-in page and no development JWKS to offer', async () => {
    expect((await request(prod.server).get('/.well-known/oauth-authorization-server')).status).toBe(404);
    expect((await request(prod.server).get('/oauth/auth')).status).toBe(404);
    expect((await request(prod.server).get('/sign-in/anything')).status).toBe(404);
  }, 60_000);

  withBrowser.it(
    'a token the development authorization server issued is refused at both doors',
    async () => {
      const page = await browser!.newPage();
      const provider = await connectThroughBrowser(devUrl, page, callback, {
        org: 'acme',
        user: 'ana@acme.test',
        role: 'owner',
      });
      await page.close();
      const token = provider.saved!.access_token;
      // The development app accepts it …
      const accepted = await request(dev.server)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        });
      expect(accepted.status).toBe(200);
      // … production does not, at the MCP door or the API door.
      const refused = await request(prod.server)
        .post('/mcp')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ error: 'invalid_token', error_description: 'the token signature is not valid' });
      const api = await request(prod.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);
      expect(api.status).toBe(401);
    },
    60_000,
  );
});
