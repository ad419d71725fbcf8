import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverAuthorizationServerMetadata, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { Logger } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { fitsPhoneWidth, launchChromium, screenshots, seriousViolations } from '../support/browser.js';
import { chromium, requires } from '../support/infrastructure.js';
import { startKaduOnFreePort, type ListeningKaduApp } from '../support/kadu-app.js';
import { BrowserOAuthProvider, CallbackServer, connectThroughBrowser } from '../support/oauth-client.js';

/**
 * Every page a person sees — sign-in and consent, the approval page and its done, canceled,
 * expired, not-valid and already-decided pages, the secret entry page and its saved, used and
 * replaced pages — in Debian's Chromium: what it says, that axe-core
 * finds nothing serious or critical, that it fits a phone, that the keyboard alone works, and
 * screenshots at desktop and phone widths in test-output/.
 */
let kadu: ListeningKaduApp;
let base: string;
let browser: Browser;
let callback: CallbackServer;
let provider: BrowserOAuthProvider;
let mcp: Client;
let api: string;

requires(chromium()).describe('the pages a person sees', () => {
  beforeAll(async () => {
    kadu = await startKaduOnFreePort();
    base = kadu.base;
    [browser, callback] = await Promise.all([launchChromium(), new CallbackServer().start()]);
    api = await kadu.token({ audience: 'api' });
    const page = await browser.newPage();
    provider = await connectThroughBrowser(
      base,
      page,
      callback,
      { org: 'acme', user: 'ana@acme.test', role: 'admin' },
      'Claude Desktop (test)',
    );
    await page.close();
    mcp = new Client({ name: 'pages-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await Promise.all([browser?.close(), callback?.stop()]);
    await kadu?.close();
  });

  async function newTask(name: string): Promise<string> {
    const res = await request(kadu.server)
      .post('/api/v1/tasks')
      .set('Authorization', `Bearer ${api}`)
      .send({ name, kind: 'echo', cost_cap: 5 });
    return res.body.data.id;
  }

  /** Calls a tool with the OAuth-connected official client; the approval link when it needs one. */
  async function approvalFor(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await mcp.callTool({ name, arguments: args });
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body.error?.code).toBe('approval_required');
    return body.error.approval_url;
  }

  async function accessible(page: Page, shots: string): Promise<void> {
    expect(await seriousViolations(page)).toEqual([]);
    expect(await fitsPhoneWidth(page)).toBe(true);
    await screenshots(page, shots);
  }

  describe('the approval page', () => {
    it('for a delete: names the OAuth client, the person and organisation, says it cannot be undone, and the keyboard approves', async () => {
      const taskId = await newTask('Quarterly close');
      const audit = vi.spyOn(Logger.prototype, 'log');
      let link: string;
      let requested: Record<string, unknown> | undefined;
      // Restored even when the approval fails: later files share Nest's Logger (vitest.config.mts).
      try {
        link = await approvalFor('kadu_tasks_delete', { task_id: taskId });
        // The audit line names the client too (its name and its OAuth client id).
        // Audit records are logged as objects (a structured logger keeps their fields).
        requested = audit.mock.calls
          .map(([line]) => line as Record<string, unknown>)
          .find((line) => line?.event === 'requested' && line.tool === 'kadu_tasks_delete');
      } finally {
        audit.mockRestore();
      }
      expect(requested).toMatchObject({
        client: 'Claude Desktop (test)',
        client_id: provider.client!.client_id,
        principal: 'acme:ana@acme.test',
      });
      const page = await browser.newPage();
      const response = await page.goto(link);
      expect(response?.status()).toBe(200);
      const csp = response!.headers()['content-security-policy']!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response!.headers()['referrer-policy']).toBe('no-referrer');
      expect(response!.headers()['cache-control']).toBe('no-store');
      await page.waitForFunction("document.querySelector('time[data-expiry]').textContent.includes('your time')");
      const text = await page.innerText('main');
      expect(text).toContain('Claude Desktop (test)'); // the client's name from its token, in the 2025 era too
      expect(text).toContain('ana@acme.test · acme · admin');
      expect(text).toContain('Delete the Kadu task “Quarterly close”.');
      expect(text).toContain('This cannot be undone.');
      expect(text).toMatch(/Link expires\s+in (10|9) minutes \(at [^)]*\d\d:\d\d[^)]*, your time\)/);
      expect(await page.locator('.args dt').first().innerText()).toBe('Task');
      expect(await page.locator('.args dd code').first().innerText()).toBe(taskId);
      expect(await page.locator('.args .tag').first().innerText()).toBe('id');
      expect(await page.getAttribute('button[value="approve"]', 'class')).toContain('danger');
      await accessible(page, 'approval-destructive');

      // Keyboard only: Tab to Continue, press Enter.
      for (
        let i = 0;
        i < 20 && (await page.evaluate("document.activeElement?.getAttribute('value')")) !== 'approve';
        i++
      )
        await page.keyboard.press('Tab');
      expect(await page.evaluate("document.activeElement?.getAttribute('value')")).toBe('approve');
      await page.keyboard.press('Enter');
      await page.waitForSelector('h1:has-text("Approved")');
      expect(await page.innerText('main')).toContain('Go back to Claude Desktop (test)');
      await accessible(page, 'approval-approved');

      const ran = await mcp.callTool({ name: 'kadu_tasks_delete', arguments: { task_id: taskId } });
      expect(ran.isError).toBeFalsy();
      expect(
        (await request(kadu.server).get(`/api/v1/tasks/${taskId}`).set('Authorization', `Bearer ${api}`)).status,
      ).toBe(404);

      const again = await page.goto(link);
      expect(again?.status()).toBe(409);
      expect(await page.innerText('h1')).toBe('Already decided');
      await accessible(page, 'approval-already-decided');
      await page.close();
    }, 60_000);

    it('for an action that can be undone: says so, a plain button, and Cancel runs nothing', async () => {
      const link = await approvalFor('kadu_webhooks_create', {
        url: 'https://93.184.215.14/kadu-hook',
        events: ['execution.succeeded'],
      });
      const page = await browser.newPage();
      await page.goto(link);
      expect(await page.innerText('main')).toContain('This can be undone.');
      expect(await page.getAttribute('button[value="approve"]', 'class')).toContain('primary');
      await accessible(page, 'approval-undoable');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForSelector('h1:has-text("Canceled")');
      await accessible(page, 'approval-canceled');
      const retry = await mcp.callTool({
        name: 'kadu_webhooks_create',
        arguments: { url: 'https://93.184.215.14/kadu-hook', events: ['execution.succeeded'] },
      });
      expect(JSON.parse((retry.content as { text: string }[])[0]!.text).error.code).toBe('approval_rejected');
      expect(
        (await request(kadu.server).get('/api/v1/webhooks').set('Authorization', `Bearer ${api}`)).body.data,
      ).toEqual([]);
      await page.close();
    }, 60_000);

    it('an expired link and a link that is not valid explain themselves', async () => {
      const link = await approvalFor('kadu_tasks_delete', { task_id: await newTask('Left too long') });
      const page = await browser.newPage();
      const realNow = Date.now;
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
      try {
        const expired = await page.goto(link);
        expect(expired?.status()).toBe(410);
        expect(await page.innerText('h1')).toBe('This link has expired');
        await accessible(page, 'approval-expired');
      } finally {
        spy.mockRestore();
      }
      const invalid = await page.goto(`${base}/mcp/approvals/${'x'.repeat(43)}`);
      expect(invalid?.status()).toBe(404);
      expect(await page.innerText('h1')).toBe('This link is not valid');
      await accessible(page, 'approval-not-valid');
      await page.close();
    }, 60_000);
  });

  describe('the secret entry page', () => {
    const rest = (method: 'post' | 'get', path: string, body?: object) =>
      request(kadu.server)[method](path).set('Authorization', `Bearer ${api}`).send(body);

    it("the secret entry page uses the shared page layout: brand, Development badge, organisation, person, expiry in relative and local time, phone width, the approval page's headers", async () => {
      const created = await rest('post', '/api/v1/secrets', {
        name: 'BANK_API_KEY',
        description: 'Open banking key of the treasury account',
      });
      expect(created.status).toBe(201);
      const link = created.body.data.entry_url as string;
      const page = await browser.newPage();
      const response = await page.goto(link);
      expect(response?.status()).toBe(200);
      const headers = response!.headers();
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['referrer-policy']).toBe('no-referrer');
      expect(headers['cache-control']).toBe('no-store');
      // The shared layout, its stylesheet applied (served as a file, under the page's CSP).
      expect(await page.getAttribute('meta[name="viewport"]', 'content')).toContain('width=device-width');
      expect(await page.getAttribute('link[rel="stylesheet"]', 'href')).toBe('/mcp/pages/page.css');
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(243, 245, 249)');
      const brand = await page.innerText('header.brand');
      expect(brand).toContain('Kobana');
      expect(brand).toContain('Kadu');
      expect(await page.innerText('header.brand .env')).toBe('Development');
      await page.waitForFunction("document.querySelector('time[data-expiry]').textContent.includes('your time')");
      const text = await page.innerText('main');
      expect(text).toContain('BANK_API_KEY');
      expect(text).toContain('Open banking key of the treasury account');
      expect(text).toMatch(/Organisation\s+acme/);
      expect(text).toMatch(/Asked by\s+ana \(ana@acme\.test\)/);
      expect(text).toMatch(/Link expires\s+in (15|14) minutes \(at [^)]*\d\d:\d\d[^)]*, your time\)/);
      expect(await page.getAttribute('#value', 'type')).toBe('password');
      await accessible(page, 'secret-entry');

      // Keyboard only: the field, the value, Enter.
      await page.getByLabel('New value').focus();
      await page.keyboard.type('sk_live_typed_in_chromium');
      await page.keyboard.press('Enter');
      await page.waitForSelector('h1:has-text("Saved")');
      const saved = await page.innerText('main');
      expect(saved).toContain('BANK_API_KEY now has a new value (version 1)');
      expect(await page.content()).not.toContain('sk_live_typed_in_chromium');
      await accessible(page, 'secret-saved');

      const used = await page.goto(link);
      expect(used?.status()).toBe(409);
      expect(await page.innerText('h1')).toBe('This link was already used');
      await accessible(page, 'secret-link-used');

      const secretId = created.body.data.secret.id as string;
      const older = (await rest('post', `/api/v1/secrets/${secretId}/rotate`)).body.data.entry_url as string;
      await rest('post', `/api/v1/secrets/${secretId}/rotate`);
      const replaced = await page.goto(older);
      expect(replaced?.status()).toBe(410);
      expect(await page.innerText('h1')).toBe('This link was replaced');
      await accessible(page, 'secret-link-replaced');
      await page.close();
    }, 60_000);
  });

  describe('the sign-in page', () => {
    it('says what is wrong next to each field, and an unknown sign-in explains itself', async () => {
      const page = await browser.newPage();
      const metadata = await discoverAuthorizationServerMetadata(base);
      const { authorizationUrl } = await startAuthorization(base, {
        metadata,
        clientInformation: provider.client!,
        redirectUrl: callback.url,
        scope: 'kadu.tasks.read',
        resource: new URL(`${base}/mcp`),
      });
      authorizationUrl.searchParams.set('prompt', 'login');
      await page.goto(authorizationUrl.href);
      await page.getByLabel('Organisation').fill('Not A Slug!');
      await page.getByLabel('Person (email)').fill('nobody');
      const answer = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Allow' }).click();
      expect((await answer).status()).toBe(422);
      expect(await page.innerText('[role="alert"]')).toContain('Check the fields marked below.');
      expect(await page.getAttribute('#org', 'aria-invalid')).toBe('true');
      expect(await page.getAttribute('#org', 'aria-describedby')).toBe('org-hint org-error');
      expect(await page.innerText('#org-error')).toContain('lower-case letters');
      expect(await page.innerText('#user-error')).toContain('email address');
      await accessible(page, 'oauth-sign-in-errors');

      const gone = await page.goto(`${base}/sign-in/not-a-real-interaction`);
      expect(gone?.status()).toBe(400);
      expect(await page.innerText('h1')).toBe('This sign-in has expired');
      await accessible(page, 'oauth-sign-in-expired');
      await page.close();
    }, 60_000);
  });
});
