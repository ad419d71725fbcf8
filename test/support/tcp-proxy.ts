import { connect, createServer, type Server, type Socket } from 'node:net';

const drop = (): void => undefined;

/**
 * A loopback TCP proxy a test controls, to take a dependency (PostgreSQL, Redis) away from the app
 * and give it back without touching the real service:
 * - `stop()` refuses: the port closes and open connections are cut;
 * - `blackhole()` partitions: connections stay open (new ones are accepted) but every byte either
 *   way is dropped, so the app's calls get no answer at all;
 * - `heal()` ends the partition: the connections it swallowed are reset (a stream that lost bytes
 *   cannot resume) and new ones pass again.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private partitioned = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as { port: number }).port;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** Holds every connection, open and new, and drops every byte. */
  blackhole(): void {
    this.partitioned = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.on('data', drop);
    }
  }

  /** Resets what the partition swallowed; new connections are forwarded again. */
  heal(): void {
    this.partitioned = false;
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  private track(socket: Socket, peer?: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {
      socket.destroy();
      peer?.destroy();
    });
  }

  private accept(client: Socket): void {
    if (this.partitioned) {
      this.track(client);
      client.on('data', drop);
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    this.track(client, upstream);
    this.track(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
