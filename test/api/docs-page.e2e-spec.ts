import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { launchChromium, screenshots } from '../support/browser.js';
import { chromium, requires } from '../support/infrastructure.js';
import { startKaduOnFreePort, type ListeningKaduApp } from '../support/kadu-app.js';
import { operationsOf } from '../support/openapi.js';

/**
 * The reference page (/api/v1/docs): Swagger UI served from this origin under a CSP with no
 * inline script or style, rendering every operation, and usable to call the API with a token.
 */
let kadu: ListeningKaduApp;
let base: string;

beforeAll(async () => {
  kadu = await startKaduOnFreePort();
  base = kadu.base;
});
afterAll(() => kadu?.close());

describe('GET /api/v1/docs', () => {
  it('answers the page under a strict CSP, and only its own files beside it', async () => {
    const res = await request(kadu.server).get('/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).not.toMatch(/<script>|<style|style=/);
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((url) => url.startsWith('/api/v1/docs/'));
    expect(assets.sort()).toEqual([
      '/api/v1/docs/docs.js',
      '/api/v1/docs/swagger-ui-bundle.js',
      '/api/v1/docs/swagger-ui.css',
    ]);
    for (const asset of assets) {
      const file = await request(kadu.server).get(asset);
      expect(file.status, asset).toBe(200);
      expect(file.headers['content-type'], asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(file.headers['x-content-type-options'], asset).toBe('nosniff');
    }
  });

  it('serves nothing else from the package folder', async () => {
    for (const name of [
      'package.json',
      'index.html',
      '..%2Fpackage.json',
      'swagger-ui-bundle.js.map',
      'oauth2-redirect.html',
    ]) {
      const res = await request(kadu.server).get(`/api/v1/docs/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.errors[0].code, name).toBe('not_found');
    }
  });
});

requires(chromium()).describe('the reference page in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const foreign: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (req) => {
      if (!req.url().startsWith(`${base}/`) && !req.url().startsWith('data:')) foreign.push(req.url());
    });
  }, 60_000);
  afterAll(() => browser?.close());

  it('shows every operation, with no CSP violation or script error, fetching nothing from elsewhere', async () => {
    const doc = (await request(kadu.server).get('/api/v1/openapi.json')).body;
    await page.goto(`${base}/api/v1/docs`);
    const count = operationsOf(doc).length;
    await page.waitForFunction(`document.querySelectorAll('.opblock').length === ${count}`, undefined, {
      timeout: 30_000,
    });
    expect(await page.locator('.opblock-summary-path').filter({ hasText: '/tasks/{id}/run' }).count()).toBe(1);
    expect(await page.locator('.opblock').count()).toBe(count);
    expect(await page.getByText('Kadu API', { exact: false }).first().isVisible()).toBe(true);
    await screenshots(page, 'api-docs');
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);

  it('calls the API from the page with a pasted token (Authorize, Try it out, Execute)', async () => {
    const token = await kadu.token({ role: 'viewer', audience: 'api' });
    await page
      .getByRole('button', { name: /authorize/i })
      .first()
      .click();
    await page.locator('#auth-bearer-value').fill(token);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    const me = page.locator('#operations-account-AccountController_me');
    await me.locator('.opblock-summary').click();
    await me.getByRole('button', { name: /try it out/i }).click();
    await me.getByRole('button', { name: /execute/i }).click();
    const status = me.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await me.locator('.live-responses-table .microlight').first().textContent()).toContain('ana@acme.test');
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
  }, 60_000);
});
