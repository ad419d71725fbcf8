import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { FreshStart } from '../support/fresh-start.js';
import { chromium, requires } from '../support/infrastructure.js';
import { freePort } from '../../scripts/free-port.mjs';

/**
 * What desktop clients do when they can only speak stdio: `mcp-remote` proxies to Kadu over HTTP
 * and signs in with OAuth on its own (dynamic registration, PKCE, its own loopback callback). It
 * prints the authorization URL; the test's Chromium opens it, signs in and allows. The official v1
 * client then talks to Kadu through it over stdio — no token anywhere in its configuration.
 */
let kadu: FreshStart;
let browser: Browser;
let configDir: string;

requires(chromium()).describe('mcp-remote', () => {
  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'kadu-mcp-remote-'));
    [kadu, browser] = await Promise.all([FreshStart.start(), launchChromium()]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([kadu?.stop(), browser?.close()]);
    rmSync(configDir, { recursive: true, force: true });
  });

  it('signs in through the browser and proxies tools/call', async () => {
    const proxy = join(dirname(new URL(import.meta.resolve('mcp-remote/package.json')).pathname), 'dist/proxy.js');
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxy, `${kadu.url}/mcp`, String(callbackPort), '--host', '127.0.0.1'],
      // Its own config folder (tokens, registration); no desktop, so it cannot open a browser itself.
      env: { PATH: dirname(process.execPath), HOME: configDir, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    let log = '';
    let opened = false;
    const page = await browser.newPage();
    const signedIn = new Promise<void>((resolve, reject) => {
      transport.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8');
        const url = /Please authorize this client by visiting:\s*(\S+)/.exec(log)?.[1];
        if (!url || opened) return;
        opened = true;
        void (async () => {
          await page.goto(url);
          await page.getByLabel('Organisation').fill('acme');
          await page.getByLabel('Person (email)').fill('remote@acme.test');
          await page.getByLabel('Role').selectOption('admin');
          await page.getByRole('button', { name: 'Allow' }).click();
          await page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${callbackPort}/`));
          resolve();
        })().catch(reject);
      });
    });
    const client = new Client({ name: 'desktop-client-through-mcp-remote', version: '1.0.0' });
    try {
      await client.connect(transport);
      await signedIn;
      const me = await client.callTool({ name: 'kadu_me_get', arguments: {} });
      expect(me.isError).toBeFalsy();
      expect(JSON.parse((me.content as { text: string }[])[0]!.text).data).toMatchObject({
        organization: { slug: 'acme' },
        member: { email: 'remote@acme.test', role: 'admin' },
      });
    } catch (error) {
      throw new Error(`${String(error)}\n--- mcp-remote said:\n${log}`, { cause: error });
    } finally {
      await client.close();
      await page.close();
    }
  }, 120_000);
});
