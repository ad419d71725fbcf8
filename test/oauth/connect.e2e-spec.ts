import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshots, seriousViolations } from '../support/browser.js';
import { FreshStart } from '../support/fresh-start.js';
import { BrowserOAuthProvider, CallbackServer } from '../support/oauth-client.js';

/**
 * Issue 20's acceptance: the official MCP client connects to a fresh `npm start` with no token
 * pasted — 401, protected-resource metadata, authorization-server metadata, dynamic registration,
 * authorization with PKCE in a real browser (sign-in and consent), token, then tools/call.
 */
let kadu: FreshStart;
let browser: Browser | undefined;
let callback: CallbackServer;

beforeAll(async () => {
  [kadu, browser, callback] = await Promise.all([FreshStart.start(), launchChromium(), new CallbackServer().start()]);
}, 90_000);
afterAll(async () => {
  await Promise.all([kadu?.stop(), browser?.close(), callback?.stop()]);
});

/** What a person does on the sign-in page: choose who they are, look, and press Allow. */
async function signIn(page: Page, who: { org: string; user: string; role: string }, shots?: string): Promise<void> {
  await page.getByLabel('Organisation').fill(who.org);
  await page.getByLabel('Person (email)').fill(who.user);
  await page.getByLabel('Role').selectOption(who.role);
  if (shots) await screenshots(page, shots);
  await page.getByRole('button', { name: 'Allow' }).click();
}

describe('the official MCP client (SDK v1) against a fresh npm start', () => {
  it('discovers, registers, authorizes with PKCE in the browser, gets a token and calls a tool', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await browser.newPage();
    let signInPage: { url: string; axe: unknown[]; text: string } | undefined;
    const provider = new BrowserOAuthProvider(callback.url, async (url) => {
      await page.goto(url.href);
      await page.waitForSelector('h1');
      signInPage = { url: page.url(), axe: await seriousViolations(page), text: await page.innerText('main') };
      await signIn(page, { org: 'globex', user: 'rui@globex.test', role: 'operator' }, 'oauth-sign-in');
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${kadu.url}/mcp`), { authProvider: provider });
    const client = new Client({ name: 'kadu-oauth-test', version: '1.0.0' });
    const redirected = callback.next();
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    // What the client did and sent to the browser: registration, then an S256 PKCE authorization for the MCP audience.
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const authorize = provider.authorizationUrls[0]!;
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${kadu.url}/oauth/auth`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(`${kadu.url}/mcp`);
    expect(signInPage?.url).toMatch(new RegExp(`^${kadu.url}/sign-in/`));
    expect(signInPage?.text).toContain('Kadu OAuth test client');
    expect(signInPage?.text).toContain('Run tasks (this spends cost units)');
    expect(signInPage?.axe).toEqual([]);

    const code = (await redirected).get('code');
    expect(code).toEqual(expect.any(String));
    await transport.finishAuth(code!);
    const tokens = provider.saved!;
    expect(tokens.token_type).toMatch(/^bearer$/i);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    // The access token has the shape of an `npm run token` token, for the MCP audience only.
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: kadu.url, aud: `${kadu.url}/mcp`, sub: 'rui@globex.test', org: 'globex', role: 'operator', client_id: provider.client!.client_id, client_name: 'Kadu OAuth test client' });
    expect(String(claims.scope).split(' ')).toContain('kadu.tasks.run');
    expect(String(claims.scope).split(' ')).not.toContain('kadu.tasks.write'); // an operator's token never carries an admin scope

    const connected = new Client({ name: 'kadu-oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${kadu.url}/mcp`), { authProvider: provider }));
    const me = await connected.callTool({ name: 'kadu_me_get', arguments: {} });
    expect(me.isError).toBeFalsy();
    const text = (me.content as { type: string; text: string }[])[0]!.text;
    expect(JSON.parse(text).data).toMatchObject({ organization: { slug: 'globex' }, member: { email: 'rui@globex.test', role: 'operator' } });
    await connected.close();
    await page.close();
  }, 90_000);
});
