import type { LookupAddress } from 'node:dns';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:net';
import { documentFetch, DocumentRefused, MAX_DOCUMENT_BYTES } from '../../src/oauth/document-fetch.js';
import { HttpsDocument, openssl } from '../support/https-document.js';
import { requires } from '../support/infrastructure.js';

/**
 * The fetch the development authorization server gives oidc-provider (src/oauth/document-fetch.ts),
 * against local servers: documents that are too large or too slow, redirects, and listeners on
 * addresses it must never connect to. Names under `.test` (RFC 2606) resolve only through the
 * resolver each test gives, so a fetch that reaches them proves it connected to the classified
 * address without asking DNS again.
 */
const HUGE = 32 * 1024 * 1024;

/** A TCP listener that counts what reaches it: a connection, even one that only sends a TLS ClientHello. */
class Listener {
  connections = 0;
  bytes = 0;
  port = 0;
  private server?: Server;

  async start(host: string): Promise<this> {
    this.server = createServer((socket) => {
      this.connections++;
      socket.on('data', (d: Buffer) => (this.bytes += d.length));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A resolver for the test's own names, recording every question. */
function resolver(names: Record<string, string>) {
  const asked: string[] = [];
  const resolveAll = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const address = names[host];
    if (!address) throw new Error(`ENOTFOUND ${host}`);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { asked, resolveAll };
}

requires(openssl()).describe('the documents the development authorization server fetches', () => {
  let server: HttpsDocument;
  let port = 0;
  /** What the server side saw of the last large or slow answer. */
  const sent = { bytes: 0, closedEarly: false };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url!, 'https://localhost');
    res.on('close', () => (sent.closedEarly = !res.writableFinished));
    if (url.pathname === '/ok') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('["a"]');
    if (url.pathname === '/redirect') return void res.writeHead(302, { Location: url.searchParams.get('to')! }).end();
    if (url.pathname === '/slow') {
      // One byte every 100 ms: a document that would take 20 s.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      let n = 0;
      const timer = setInterval(() => (++n > 200 ? (clearInterval(timer), res.end()) : res.write(' ')), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    // 32 MiB, stated in the Content-Length or chunked; written only as fast as it is read.
    if (url.pathname === '/huge-declared') res.writeHead(200, { 'Content-Length': String(HUGE) });
    else res.writeHead(200, { 'Content-Type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    sent.bytes = 0;
    const pump = (): void => {
      while (sent.bytes < HUGE && !res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  }

  beforeAll(async () => {
    server = HttpsDocument.create(['localhost', 'doc.test'])!;
    port = await server.listen(handle);
  });
  afterAll(() => server?.stop());

  const fetcher = (allowLoopback: boolean, names: Record<string, string> = { 'doc.test': '127.0.0.1' }) => {
    const dns = resolver(names);
    const refused: string[] = [];
    const fetch = documentFetch({
      allowLoopback,
      resolveAll: dns.resolveAll,
      tls: { ca: server.cert },
      onRefused: (url, reason) => refused.push(`${url}: ${reason}`),
    });
    return { fetch, asked: dns.asked, refused };
  };

  it('reads a document from the address it classified: one resolution per hop, no second lookup', async () => {
    const { fetch, asked } = fetcher(true);
    const res = await fetch(`https://doc.test:${port}/redirect?to=${encodeURIComponent('/ok')}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(['a']);
    // Two hops (the redirect and the document), each resolved once, by the resolver given.
    expect(asked).toEqual(['doc.test', 'doc.test']);
  });

  it('an oversized document is refused at its Content-Length, before its body is read', async () => {
    const { fetch } = fetcher(true);
    await expect(fetch(`https://doc.test:${port}/huge-declared`)).rejects.toThrow(
      new DocumentRefused(`https://doc.test:${port} sent ${HUGE} bytes; at most ${MAX_DOCUMENT_BYTES} are read`),
    );
  });

  it('an oversized document without a length is cut at the cap: the server could not send it', async () => {
    const { fetch } = fetcher(true);
    await expect(fetch(`https://doc.test:${port}/huge-chunked`)).rejects.toThrow(
      new DocumentRefused(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`),
    );
    for (let i = 0; i < 100 && !sent.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sent.closedEarly).toBe(true);
    // What left the server is at most what the kernel buffers held when the fetch stopped reading.
    expect(sent.bytes).toBeLessThan(HUGE / 2);
  });

  it('a slow document is cut at the total deadline', async () => {
    const { fetch } = fetcher(true);
    sent.closedEarly = false;
    await expect(fetch(`https://doc.test:${port}/slow`)).rejects.toThrow(
      new DocumentRefused(`https://doc.test:${port} did not answer in time`),
    );
    for (let i = 0; i < 100 && !sent.closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sent.closedEarly).toBe(true);
  });

  it('without the test switch, a loopback listener receives no connection at all (not even a TLS ClientHello)', async () => {
    const alias = await new Listener().start('127.0.0.2');
    const local = await new Listener().start('127.0.0.1');
    try {
      const { fetch, refused } = fetcher(false, { 'doc.test': '127.0.0.1' });
      for (const url of [
        `https://127.0.0.2:${alias.port}/client.json`,
        `https://doc.test:${local.port}/client.json`,
        `https://[::ffff:127.0.0.1]:${local.port}/client.json`,
      ])
        await expect(fetch(url)).rejects.toBeInstanceOf(DocumentRefused);
      expect(refused).toEqual([
        `https://127.0.0.2:${alias.port}/client.json: the address 127.0.0.2 is private, loopback, link-local, reserved or an IPv4 tunnel`,
        `https://doc.test:${local.port}/client.json: the address 127.0.0.1 of doc.test is private, loopback, link-local, reserved or an IPv4 tunnel`,
        `https://[::ffff:7f00:1]:${local.port}/client.json: the address ::ffff:7f00:1 is private, loopback, link-local, reserved or an IPv4 tunnel`,
      ]);
      expect([alias.connections, local.connections, alias.bytes, local.bytes]).toEqual([0, 0, 0, 0]);
    } finally {
      await Promise.all([alias.stop(), local.stop()]);
    }
  });

  it.each([
    ['private', 'https://10.0.0.7/doc.json'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/'],
    ['unique local (AWS IPv6 metadata)', 'https://[fd00:ec2::254]/'],
    ['shared address space (Alibaba metadata)', 'https://100.100.200.200/'],
    ['a name that resolves to the metadata address', 'https://metadata.test/'],
  ])('%s is refused before any connection, even with the test switch on', async (_what, url) => {
    const { fetch, refused } = fetcher(true, { 'metadata.test': '169.254.169.254' });
    await expect(fetch(url)).rejects.toBeInstanceOf(DocumentRefused);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/is private, loopback, link-local, reserved or an IPv4 tunnel$/);
  });

  it('every redirect hop is classified: a document redirecting to an internal address is not followed', async () => {
    const { fetch, asked, refused } = fetcher(true, { 'doc.test': '127.0.0.1', 'metadata.test': '169.254.169.254' });
    await expect(
      fetch(`https://doc.test:${port}/redirect?to=${encodeURIComponent('https://metadata.test/latest/meta-data/')}`),
    ).rejects.toBeInstanceOf(DocumentRefused);
    expect(asked).toEqual(['doc.test', 'metadata.test']);
    expect(refused).toEqual([
      'https://metadata.test/latest/meta-data/: the address 169.254.169.254 of metadata.test is private, loopback, link-local, reserved or an IPv4 tunnel',
    ]);
  });

  it('only https is fetched, on the first hop and after a redirect; a manual redirect is handed back as it is', async () => {
    const { fetch, refused } = fetcher(true);
    await expect(fetch(`http://doc.test:${port}/ok`)).rejects.toBeInstanceOf(DocumentRefused);
    await expect(
      fetch(`https://doc.test:${port}/redirect?to=${encodeURIComponent(`http://doc.test:${port}/ok`)}`),
    ).rejects.toBeInstanceOf(DocumentRefused);
    expect(refused.map((r) => r.replace(/^.*: /, ''))).toEqual([
      'only https documents are fetched',
      'only https documents are fetched',
    ]);
    const manual = await fetch(`https://doc.test:${port}/redirect?to=%2Fok`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/ok');
  });

  it('stops after three redirects', async () => {
    const { fetch } = fetcher(true);
    let url = `https://doc.test:${port}/ok`;
    for (let i = 0; i < 4; i++) url = `/redirect?to=${encodeURIComponent(url)}`;
    await expect(fetch(`https://doc.test:${port}${url}`)).rejects.toThrow(
      new DocumentRefused(`more than 3 redirects from https://doc.test:${port}`),
    );
  });
});
