import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy to a real dependency that a test can turn into a black hole: connections
 * stay open (new ones are accepted) but no byte goes through — a partition, not a refusal.
 */
export class BlackholeProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private holes = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      this.track(client);
      if (this.holes) return;
      const upstream = connect(this.targetPort, this.targetHost);
      this.track(upstream);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop);
      upstream.on('error', drop);
      client.on('data', (chunk) => !this.holes && upstream.write(chunk));
      upstream.on('data', (chunk) => !this.holes && client.write(chunk));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
  }

  /** From now on, nothing passes either way; connections are held open. */
  blackhole(): void {
    this.holes = true;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }
}
