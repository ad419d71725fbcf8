import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { refreshAuthorization, discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { CallbackServer, connectThroughBrowser } from '../support/oauth-client.js';
import { chromium, postgres, redis, requires } from '../support/infrastructure.js';
import { SERVED_BY } from '../support/balancer.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

/**
 * Issue 20 in the distributed topology: the development authorization server keeps its state
 * (registrations, sign-ins, grants, codes, refresh tokens) in Redis, and its cookies are signed
 * with a key derived from the shared MCP_STATE_KEY — so an OAuth connection whose every request
 * lands on another replica (round robin) completes, and a code is spent once across replicas.
 */
let s3: S3TestServer | undefined;
let set: ReplicaSet;
let browser: Browser | undefined;
let callback: CallbackServer | undefined;

requires(await postgres(), await redis(), chromium()).describe('OAuth across replicas', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    [set, browser, callback] = await Promise.all([
      ReplicaSet.start({ count: 2, s3 }),
      launchChromium(),
      new CallbackServer().start(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), callback?.stop()]);
    await set?.stop();
    await s3?.close();
  });

  it('registration, sign-in, consent, token, refresh and tools/call, spread over both replicas', async () => {
    const before = set.replicas.map((r) => set.balancer.served(r.name));
    const page = await browser!.newPage();
    const provider = await connectThroughBrowser(set.url, page, callback!, {
      org: 'acme',
      user: 'spread@acme.test',
      role: 'operator',
    });
    await page.close();
    const client = new Client({ name: 'replicas-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${set.url}/mcp`), { authProvider: provider }));
    try {
      for (let i = 0; i < 2; i++) {
        const me = await client.callTool({ name: 'kadu_me_get', arguments: {} });
        expect(JSON.parse((me.content as { text: string }[])[0]!.text).data.member).toMatchObject({
          email: 'spread@acme.test',
          role: 'operator',
        });
      }
    } finally {
      await client.close();
    }
    set.replicas.forEach((r, i) => expect(set.balancer.served(r.name)).toBeGreaterThan(before[i]! + 3));

    // The refresh token works on whichever replica answers, and only once (it rotates).
    const metadata = await discoverAuthorizationServerMetadata(set.url);
    const refresh = () =>
      refreshAuthorization(set.url, {
        metadata,
        clientInformation: provider.client!,
        refreshToken: provider.saved!.refresh_token!,
        resource: new URL(`${set.url}/mcp`),
      });
    const first = await refresh();
    expect(first.access_token).toEqual(expect.any(String));
    await expect(refresh()).rejects.toThrow(/invalid_grant|grant request is invalid/);
  });

  it('a registration burst from one address spread over both replicas meets one budget (20), kept in Redis', async () => {
    const served = new Set<string>();
    const statuses: number[] = [];
    for (let i = 0; i < 26; i++) {
      const res = await fetch(`${set.url}/oauth/reg`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '203.0.113.77' },
        body: JSON.stringify({
          client_name: `burst ${i}`,
          redirect_uris: ['http://localhost:7777/callback'],
          token_endpoint_auth_method: 'none',
        }),
      });
      statuses.push(res.status);
      served.add(res.headers.get(SERVED_BY)!);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(served.size).toBe(2);
    expect(statuses).toEqual([...Array(20).fill(201), ...Array(6).fill(429)]);
  });
});
