import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:net';
import request from 'supertest';
import { FreshStart } from '../support/fresh-start.js';
import { HttpsDocument, openssl } from '../support/https-document.js';
import { requires } from '../support/infrastructure.js';
import { type KaduTestApp, startKadu } from '../support/kadu-app.js';

/**
 * The documents the development authorization server fetches on a client's say — a Client ID
 * Metadata Document (the client_id itself), a `sector_identifier_uri` given at registration —
 * tried through the app as an anonymous client would: at internal addresses, and oversized or
 * slow. (document-fetch.e2e-spec.ts tries the fetch itself, redirects and resolution included.)
 */
const REDIRECT = 'http://localhost:7777/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** A TCP listener that counts what reaches it: a connection, even one that only sends a TLS ClientHello. */
class Listener {
  connections = 0;
  port = 0;
  private server?: Server;

  async start(host: string): Promise<this> {
    this.server = createServer((socket) => {
      this.connections++;
      socket.on('error', () => undefined).destroy();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const authorizeQuery = (clientId: string) =>
  new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    scope: 'openid kadu:tasks:read',
  }).toString();

const registration = (extra: Record<string, unknown>) => ({
  client_name: 'Fetched Documents Test',
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: 'none',
  ...extra,
});

describe('without the test switch: internal addresses receive no connection at all', () => {
  let kadu: KaduTestApp;
  let alias: Listener;
  let local: Listener;

  beforeAll(async () => {
    [kadu, alias, local] = await Promise.all([
      startKadu(),
      new Listener().start('127.0.0.2'),
      new Listener().start('127.0.0.1'),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([kadu?.close(), alias?.stop(), local?.stop()]);
  });

  it('a Client ID Metadata Document URL on a loopback address is refused before any connection (no TLS ClientHello)', async () => {
    for (const clientId of [
      `https://127.0.0.2:${alias.port}/client.json`,
      `https://localhost:${local.port}/client.json`,
    ]) {
      const res = await request(kadu.server).get(`/oauth/auth?${authorizeQuery(clientId)}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('client_id metadata document fetch failed');
    }
    expect([alias.connections, local.connections]).toEqual([0, 0]);
  });

  it('a sector_identifier_uri on a loopback address is refused at registration before any connection', async () => {
    const res = await request(kadu.server)
      .post('/oauth/reg')
      .send(registration({ sector_identifier_uri: `https://127.0.0.2:${alias.port}/sector.json` }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'could not load sector_identifier_uri response',
    });
    expect(alias.connections).toBe(0);
  });
});

requires(openssl()).describe('with the test switch (loopback allowed): documents capped in size and time', () => {
  let kadu: FreshStart;
  let documents: HttpsDocument;
  let port = 0;
  const sector = (url: string) => `https://localhost:${port}${url}`;
  const huge = Buffer.from(
    `[${JSON.stringify(REDIRECT)}${`,${JSON.stringify('x'.repeat(1024 * 1024 - 3))}`.repeat(8)}]`,
  );

  beforeAll(async () => {
    documents = HttpsDocument.create()!;
    port = await documents.listen((req: IncomingMessage, res: ServerResponse) => {
      res.on('error', () => undefined);
      if (req.url === '/ok.json')
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify([REDIRECT]));
      if (req.url === '/slow.json') {
        // A valid document sent one byte every 100 ms: it would take minutes.
        const body = JSON.stringify([REDIRECT]) + ' '.repeat(2000);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        let at = 0;
        const timer = setInterval(() => (at < body.length ? res.write(body[at++]!) : res.end()), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      // A valid sector document of 8 MiB (the redirect URI, then padding entries), sent as fast as
      // it is read and chunked: no Content-Length to refuse it by.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }).end(huge);
    });
    kadu = await FreshStart.start(
      { NODE_EXTRA_CA_CERTS: documents.caFile, OAUTH_DEV_CIMD_ALLOW_LOOPBACK: 'true' },
      { seeded: true },
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all([kadu?.stop(), documents?.stop()]);
  });

  const register = (extra: Record<string, unknown>) =>
    fetch(`${kadu.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(registration(extra)),
    });

  it('a small sector_identifier_uri document is read and the client registered', async () => {
    const res = await register({ sector_identifier_uri: sector('/ok.json') });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ sector_identifier_uri: sector('/ok.json'), redirect_uris: [REDIRECT] });
  });

  it('an 8 MiB sector_identifier_uri document is not downloaded: registration answers invalid_client_metadata', async () => {
    const res = await register({ sector_identifier_uri: sector('/huge.json') });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'could not load sector_identifier_uri response',
    });
  });

  it('a sector_identifier_uri document that trickles in is cut at the deadline: invalid_client_metadata', async () => {
    const res = await register({ sector_identifier_uri: sector('/slow.json') });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'could not load sector_identifier_uri response',
    });
  });
});
