import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** openssl, which makes the test certificate (a Requirement for `requires`). */
export function openssl(): { missing?: string } {
  const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  return probe.error || probe.status !== 0 ? { missing: 'openssl (not installed: apt-get install openssl)' } : {};
}

/**
 * One JSON document served over HTTPS on loopback (a Client ID Metadata Document lives at an https
 * URL), with a self-signed certificate made by openssl for `localhost` (and any other `names`);
 * `caFile` is what a process that fetches it trusts (NODE_EXTRA_CA_CERTS), `cert` what an
 * in-process client trusts. Undefined when openssl is not installed.
 */
export class HttpsDocument {
  private server?: Server;
  url = '';
  private constructor(
    readonly caFile: string,
    private readonly folder: string,
    private readonly key: Buffer,
    readonly cert: Buffer,
  ) {}

  static create(names: string[] = ['localhost']): HttpsDocument | undefined {
    const folder = mkdtempSync(join(tmpdir(), 'kadu-tls-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    if (made.error || made.status !== 0) {
      rmSync(folder, { recursive: true, force: true });
      return undefined;
    }
    return new HttpsDocument(
      join(folder, 'cert.pem'),
      folder,
      readFileSync(join(folder, 'key.pem')),
      readFileSync(join(folder, 'cert.pem')),
    );
  }

  /** Serves `document(url)` at https://localhost:<port>/<path>; counts the fetches. */
  fetches = 0;
  async serve(path: string, document: (url: string) => object): Promise<string> {
    this.server = createServer({ key: this.key, cert: this.cert }, (req, res) => {
      if (req.url !== path) return void res.writeHead(404).end();
      this.fetches++;
      res
        .writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60' })
        .end(JSON.stringify(document(this.url)));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://localhost:${(this.server.address() as { port: number }).port}${path}`;
    return this.url;
  }

  /** Answers every request with `handler` at https://localhost:<port>; resolves with the port. */
  async listen(handler: RequestListener): Promise<number> {
    this.server = createServer({ key: this.key, cert: this.cert }, handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
    rmSync(this.folder, { recursive: true, force: true });
  }
}
