import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { launchChromium, seriousViolations } from '../support/browser.js';
import { FreshStart } from '../support/fresh-start.js';
import { HttpsDocument, openssl } from '../support/https-document.js';
import { chromium, requires } from '../support/infrastructure.js';
import { CallbackServer } from '../support/oauth-client.js';

/**
 * The newer way MCP clients identify themselves: no registration, the client_id is an https URL
 * whose document the authorization server fetches (Client ID Metadata Document). Driven by the
 * official v2 client, which also checks the `iss` of the authorization response (RFC 9207).
 */
let kadu: FreshStart | undefined;
let browser: Browser | undefined;
let callback: CallbackServer | undefined;
let document: HttpsDocument;

const gate = requires(chromium(), openssl());

gate.describe('a Client ID Metadata Document', () => {
  beforeAll(async () => {
    document = HttpsDocument.create()!;
    [browser, callback] = await Promise.all([launchChromium(), new CallbackServer().start()]);
    await document.serve('/kadu-test-client.json', (url) => ({
      client_id: url,
      client_name: 'Metadata Document Client',
      client_uri: 'https://localhost/',
      redirect_uris: [callback!.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    // The app trusts the test certificate and may fetch client documents from loopback (tests only).
    kadu = await FreshStart.start({ NODE_EXTRA_CA_CERTS: document.caFile, OAUTH_DEV_CIMD_ALLOW_LOOPBACK: 'true' });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([kadu?.stop(), browser?.close(), callback?.stop(), document?.stop()]);
  });

  it('the v2 client connects with its https client_id: no registration, the name comes from its document', async () => {
    const page = await browser!.newPage();
    let saved: { access_token: string } | undefined;
    let client: { client_id: string } | undefined;
    let verifier = '';
    let signInText = '';
    let axe: unknown[] = [];
    const provider: OAuthClientProvider = {
      redirectUrl: callback!.url,
      clientMetadataUrl: document.url,
      clientMetadata: {
        client_name: 'Metadata Document Client',
        redirect_uris: [callback!.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      clientInformation: () => client,
      saveClientInformation: (info) => void (client = info),
      tokens: () => saved as never,
      saveTokens: (tokens) => void (saved = tokens),
      saveCodeVerifier: (v) => void (verifier = v),
      codeVerifier: () => verifier,
      redirectToAuthorization: async (url) => {
        await page.goto(url.href);
        signInText = await page.innerText('main');
        axe = await seriousViolations(page);
        await page.getByLabel('Organisation').fill('initech');
        await page.getByLabel('Person (email)').fill('peter@initech.test');
        await page.getByLabel('Role').selectOption('viewer');
        await page.getByRole('button', { name: 'Allow' }).click();
      },
    };
    const redirected = callback!.next();
    const transport = new StreamableHTTPClientTransport(new URL(`${kadu!.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'cimd-test', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(client?.client_id).toBe(document.url);
    expect(document.fetches).toBeGreaterThan(0);
    expect(signInText).toContain('Metadata Document Client');
    expect(signInText).toContain(`Its details are published by ${new URL(document.url).host}`);
    expect(axe).toEqual([]);

    await transport.finishAuth(await redirected);
    expect(decodeJwt(saved!.access_token)).toMatchObject({
      client_id: document.url,
      client_name: 'Metadata Document Client',
      org: 'initech',
      role: 'viewer',
      aud: `${kadu!.url}/mcp`,
    });
    const connected = new Client({ name: 'cimd-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${kadu!.url}/mcp`), { authProvider: provider }));
    const tools = (await connected.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('kadu_tasks_list');
    expect(tools).not.toContain('kadu_tasks_run'); // a viewer's token: only what a viewer may do is listed
    const me = await connected.callTool({ name: 'kadu_me_get', arguments: {} });
    expect(JSON.parse((me.content as { text: string }[])[0]!.text).data.member).toMatchObject({
      email: 'peter@initech.test',
      role: 'viewer',
    });
    await connected.close();
    await page.close();
  }, 90_000);
});
