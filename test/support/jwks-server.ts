import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
type SigningKey = { kid: string; privateKey: PrivateKey; publicJwk: Record<string, unknown> };

/**
 * A stand-in authorization server for the production token path: it publishes a JWKS over real
 * HTTP and signs tokens with its keys. Keys can be rotated; the server can be stopped (connections
 * refused) or made silent (connections accepted, never answered), to test the app against it.
 */
export class JwksServer {
  readonly issuer = 'https://auth.kadu.test';
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly keys = new Map<string, SigningKey>();
  /** Keys the JWKS document lists (a key can sign without being published: an unknown kid). */
  private readonly published = new Set<string>();
  silent = false;
  fetches = 0;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/jwks.json`;
  }

  async addKey(kid: string, { publish = true } = {}): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    this.keys.set(kid, {
      kid,
      privateKey,
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
    });
    if (publish) this.published.add(kid);
  }

  unpublish(kid: string): void {
    this.published.delete(kid);
  }

  /** A token signed with `kid`; claims default to a valid one for `audience`. */
  sign(
    kid: string,
    audience: string,
    claims: JWTPayload = {},
    { issuer = this.issuer, subject = 'ana@acme.test' as string | null } = {},
  ): Promise<string> {
    const key = this.keys.get(kid);
    if (!key) throw new Error(`no key ${kid}`);
    const jwt = new SignJWT({ org: 'acme', role: 'admin', scope: 'kadu.tasks.read kadu.tasks.write', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('1h');
    if (subject !== null) jwt.setSubject(subject);
    return jwt.sign(key.privateKey);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (this.silent) return; // accepted, never answered
      this.fetches++;
      if (req.url !== '/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      const keys = [...this.published].map((kid) => this.keys.get(kid)!.publicJwk);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Stops listening: connections are refused until `start()` listens on the same port again. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
