import { createServer, type Server } from 'node:http';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';

/**
 * Where the authorization server sends the browser back: a loopback HTTP server, as a desktop MCP
 * client runs one. It answers a small page and hands the code (or the error) to the test.
 */
export class CallbackServer {
  private server?: Server;
  private waiters: ((params: URLSearchParams) => void)[] = [];
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // Only the redirect counts: the browser also asks this origin for /favicon.ico after showing
      // the callback page, sometimes late enough to be taken for the next test's redirect.
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const params = url.searchParams;
      res
        .writeHead(200, { 'Content-Type': 'text/plain' })
        .end(params.get('code') ? 'Signed in; you can close this window.' : `Not signed in: ${params.get('error')}`);
      this.waiters.shift()?.(params);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/callback`;
    return this;
  }

  /** The query of the next redirect to the callback. */
  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/**
 * The official SDK's OAuthClientProvider, implemented as a desktop client does: it keeps what it
 * registers and receives in memory and hands the authorization URL to a browser (the test's
 * Chromium) instead of pasting any token.
 */
export class BrowserOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrls: URL[] = [];

  constructor(
    private readonly redirect: string,
    private readonly open: (url: URL) => Promise<void>,
    readonly clientMetadataUrl?: string,
    private readonly name = 'Kadu OAuth test client',
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    await this.open(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * A whole OAuth connection as the official SDK runs it (`auth`: discovery, registration, PKCE
 * authorization, token), with the browser page signing in as `who` and pressing Allow.
 */
export async function connectThroughBrowser(
  serverUrl: string,
  page: import('playwright-core').Page,
  callback: CallbackServer,
  who: { org: string; user: string; role: string },
  clientName = 'Kadu OAuth test client',
): Promise<BrowserOAuthProvider> {
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const provider = new BrowserOAuthProvider(
    callback.url,
    async (url) => {
      await page.goto(url.href);
      await page.getByLabel('Organisation').fill(who.org);
      await page.getByLabel('Person (email)').fill(who.user);
      await page.getByLabel('Role').selectOption(who.role);
      await page.getByRole('button', { name: 'Allow' }).click();
    },
    undefined,
    clientName,
  );
  const redirected = callback.next();
  if ((await auth(provider, { serverUrl: `${serverUrl}/mcp` })) !== 'REDIRECT')
    throw new Error('expected a browser sign-in');
  const code = (await redirected).get('code');
  if (!code) throw new Error('no authorization code came back');
  await auth(provider, { serverUrl: `${serverUrl}/mcp`, authorizationCode: code });
  return provider;
}
