import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshots, seriousViolations } from '../support/browser.js';
import { chromium, requires } from '../support/infrastructure.js';
import { FreshStart } from '../support/fresh-start.js';
import { BrowserOAuthProvider, CallbackServer } from '../support/oauth-client.js';

/**
 * Issue 20's acceptance: the official MCP client connects to a fresh `npm start` with no token
 * pasted — 401, protected-resource metadata, authorization-server metadata, dynamic registration,
 * authorization with PKCE in a real browser (sign-in and consent), token, then tools/call.
 */
let kadu: FreshStart;
let browser: Browser;
let callback: CallbackServer;
/** Left by the first test for the next ones: the registered client, its tokens, and the browser (signed in). */
let connectedState: { provider: BrowserOAuthProvider; page: Page } | undefined;

beforeAll(async () => {
  [kadu, callback] = await Promise.all([FreshStart.start(), new CallbackServer().start()]);
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

describe('what a client finds without a browser', () => {
  it('401 → protected-resource metadata → authorization-server metadata (RFC 8414) → registration; PKCE with S256 is required', async () => {
    const first = await fetch(`${kadu.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(first.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(`${kadu.url}/.well-known/oauth-protected-resource/mcp`);
    const resource = (await (await fetch(metadataUrl!)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(resource).toMatchObject({ resource: `${kadu.url}/mcp`, authorization_servers: [kadu.url] });

    const server = (await (await fetch(`${kadu.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(server).toMatchObject({
      issuer: kadu.url,
      authorization_endpoint: `${kadu.url}/oauth/auth`,
      token_endpoint: `${kadu.url}/oauth/token`,
      registration_endpoint: `${kadu.url}/oauth/reg`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(server.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(server.scopes_supported).toEqual(expect.arrayContaining(['kadu.tasks.run', 'kadu.members.write']));

    const registered = await fetch(server.registration_endpoint as string, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'curl',
        redirect_uris: [callback.url],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string; client_name: string };
    expect(client.client_name).toBe('curl');

    const authorize = async (extra: Record<string, string>) => {
      const url = new URL(server.authorization_endpoint as string);
      for (const [k, v] of Object.entries({
        client_id: client.client_id,
        redirect_uri: callback.url,
        response_type: 'code',
        scope: 'kadu.tasks.read',
        state: 's',
        ...extra,
      }))
        url.searchParams.set(k, v);
      const answer = await fetch(url, { redirect: 'manual' });
      return new URL(answer.headers.get('location') ?? '', kadu.url).searchParams;
    };
    expect(Object.fromEntries(await authorize({}))).toMatchObject({
      error: 'invalid_request',
      error_description: 'Authorization Server policy requires PKCE to be used for this request',
    });
    expect((await authorize({ code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' })).get('error')).toBe(
      'invalid_request',
    );
    expect(
      (
        await authorize({
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
          resource: 'https://elsewhere.example/',
        })
      ).get('error'),
    ).toBe('invalid_target');
  }, 60_000);
});

requires(chromium()).describe('the official MCP client (SDK v1) against a fresh npm start', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });

  it('discovers, registers, authorizes with PKCE in the browser, gets a token and calls a tool', async () => {
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
    expect(claims).toMatchObject({
      iss: kadu.url,
      aud: `${kadu.url}/mcp`,
      sub: 'rui@globex.test',
      org: 'globex',
      role: 'operator',
      client_id: provider.client!.client_id,
      client_name: 'Kadu OAuth test client',
    });
    expect(String(claims.scope).split(' ')).toContain('kadu.tasks.run');
    expect(String(claims.scope).split(' ')).not.toContain('kadu.tasks.write'); // an operator's token never carries an admin scope

    const connected = new Client({ name: 'kadu-oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${kadu.url}/mcp`), { authProvider: provider }));
    const me = await connected.callTool({ name: 'kadu_me_get', arguments: {} });
    expect(me.isError).toBeFalsy();
    const text = (me.content as { type: string; text: string }[])[0]!.text;
    expect(JSON.parse(text).data).toMatchObject({
      organization: { slug: 'globex' },
      member: { email: 'rui@globex.test', role: 'operator' },
    });
    await connected.close();
    connectedState = { provider, page };
  }, 90_000);

  it('the refresh token gives a new access token that works, without the browser', async () => {
    const { provider } = connectedState!;
    const metadata = await discoverAuthorizationServerMetadata(kadu.url);
    const refreshed = await refreshAuthorization(kadu.url, {
      metadata,
      clientInformation: provider.client!,
      refreshToken: provider.saved!.refresh_token!,
      resource: new URL(`${kadu.url}/mcp`),
    });
    expect(refreshed.access_token).not.toBe(provider.saved!.access_token);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({
      aud: `${kadu.url}/mcp`,
      sub: 'rui@globex.test',
      org: 'globex',
      role: 'operator',
      client_name: 'Kadu OAuth test client',
    });
    const list = await mcpPost(refreshed.access_token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: META },
    });
    expect(list.status).toBe(200);
    expect(
      ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name),
    ).toContain('kadu_me_get');
  }, 60_000);

  it('audiences stay apart: the MCP token is refused by /api/v1, and an API token from the same server is refused by /mcp', async () => {
    const { provider, page } = connectedState!;
    const mcpToken = provider.saved!.access_token;
    const refusedAtApi = await fetch(`${kadu.url}/api/v1/me`, { headers: { Authorization: `Bearer ${mcpToken}` } });
    expect(refusedAtApi.status).toBe(401);
    expect(((await refusedAtApi.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toBe(
      'the token was not issued for this resource (audience)',
    );

    // The same client asks for the REST API (RFC 8707 resource); the signed-in browser consents again.
    const metadata = await discoverAuthorizationServerMetadata(kadu.url);
    const api = new URL(`${kadu.url}/api/v1`);
    const { authorizationUrl, codeVerifier } = await startAuthorization(kadu.url, {
      metadata,
      clientInformation: provider.client!,
      redirectUrl: callback.url,
      scope: 'kadu.tasks.read kadu.usage.read',
      resource: api,
    });
    const redirected = callback.next();
    await page.goto(authorizationUrl.href);
    expect(await page.innerText('main')).toContain('Kadu REST API');
    await page.getByRole('button', { name: 'Allow' }).click();
    const code = (await redirected).get('code')!;
    const tokens = await exchangeAuthorization(kadu.url, {
      metadata,
      clientInformation: provider.client!,
      authorizationCode: code,
      codeVerifier,
      redirectUri: callback.url,
      resource: api,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: api.href,
      org: 'globex',
      sub: 'rui@globex.test',
      scope: 'kadu.tasks.read kadu.usage.read',
    });
    const me = await fetch(`${kadu.url}/api/v1/me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { organization: { slug: string } } }).data.organization.slug).toBe('globex');
    const refusedAtMcp = await mcpPost(tokens.access_token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: META },
    });
    expect(refusedAtMcp.status).toBe(401);
    expect(refusedAtMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);

  it('a resource that is not Kadu is refused by the authorization server (invalid_target)', async () => {
    const { provider, page } = connectedState!;
    const metadata = await discoverAuthorizationServerMetadata(kadu.url);
    const { authorizationUrl } = await startAuthorization(kadu.url, {
      metadata,
      clientInformation: provider.client!,
      redirectUrl: callback.url,
      scope: 'kadu.tasks.read',
      resource: new URL('https://elsewhere.example/mcp'),
    });
    const redirected = callback.next();
    await page.goto(authorizationUrl.href);
    expect((await redirected).get('error')).toBe('invalid_target');
  }, 60_000);

  it('Cancel on the sign-in page sends the client access_denied and no code', async () => {
    const page = await browser.newPage();
    const provider = new BrowserOAuthProvider(
      callback.url,
      async (url) => {
        await page.goto(url.href);
        await page.getByRole('button', { name: 'Cancel' }).click();
      },
      undefined,
      'A client the person refuses',
    );
    const redirected = callback.next();
    await expect(
      new Client({ name: 't', version: '1' }).connect(
        new StreamableHTTPClientTransport(new URL(`${kadu.url}/mcp`), { authProvider: provider }),
      ),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const answer = await redirected;
    expect(answer.get('error')).toBe('access_denied');
    expect(answer.get('code')).toBeNull();
    await page.close();
  }, 60_000);
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fetch', version: '1' },
};

function mcpPost(token: string, body: { method: string } & Record<string, unknown>): Promise<Response> {
  return fetch(`${kadu.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': body.method,
    },
    body: JSON.stringify(body),
  });
}
