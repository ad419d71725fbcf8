import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

export interface Backend {
  readonly name: string;
  readonly port: number;
}

/** Which replica answered, so tests can tell live replicas' answers from a dying one's. */
export const SERVED_BY = 'x-served-by';

/**
 * A small round-robin HTTP load balancer for the replica tests: each request goes to the next
 * backend in turn. Like a real one it takes a backend that refuses connections out of rotation
 * (and retries the request elsewhere, which is safe: nothing was sent) and puts it back when it
 * accepts again. Requests are not retried once sent: a replica killed mid-request answers 502.
 */
export class RoundRobinBalancer {
  private readonly server: Server;
  private readonly backends: Backend[] = [];
  private readonly down = new Set<string>();
  private readonly answered = new Map<string, number>();
  private next = 0;
  port = 0;

  constructor() {
    this.server = createServer((req, res) => void this.forward(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  add(backend: Backend): void {
    this.backends.push(backend);
  }

  remove(name: string): void {
    const index = this.backends.findIndex((b) => b.name === name);
    if (index >= 0) this.backends.splice(index, 1);
  }

  /** How many answers a backend has given through the balancer. */
  served(name: string): number {
    return this.answered.get(name) ?? 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Buffer;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = Buffer.concat(chunks);
    } catch {
      res.destroy();
      return;
    }
    const tried = new Set<string>();
    for (;;) {
      const backend = this.pick(tried);
      if (!backend) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('no backend accepts connections');
        return;
      }
      tried.add(backend.name);
      const outcome = await this.send(backend, req, body, res);
      if (outcome === 'refused') {
        if (!this.down.has(backend.name)) {
          this.down.add(backend.name);
          this.watch(backend);
        }
        continue;
      }
      return;
    }
  }

  private pick(tried: Set<string>): Backend | undefined {
    const live = this.backends.filter((b) => !this.down.has(b.name) && !tried.has(b.name));
    if (!live.length) return undefined;
    return live[this.next++ % live.length];
  }

  private send(backend: Backend, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<'refused' | 'done'> {
    return new Promise((resolve) => {
      const upstream = request(
        {
          host: '127.0.0.1',
          port: backend.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: req.headers.host ?? '' },
          agent: false,
        },
        (answer) => {
          this.answered.set(backend.name, this.served(backend.name) + 1);
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [SERVED_BY]: backend.name });
          pipeline(answer, res).then(
            () => resolve('done'),
            () => {
              res.destroy();
              resolve('done');
            },
          );
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') return resolve('refused');
        if (!res.headersSent)
          res
            .writeHead(502, { 'content-type': 'text/plain', [SERVED_BY]: backend.name })
            .end(`backend ${backend.name} failed: ${error.code ?? error.message}`);
        else res.destroy();
        resolve('done');
      });
      upstream.end(body);
    });
  }

  /** Puts a refusing backend back in rotation once it accepts connections again. */
  private watch(backend: Backend): void {
    const timer = setInterval(() => {
      if (!this.backends.includes(backend)) return clearInterval(timer);
      const probe = request({ host: '127.0.0.1', port: backend.port, path: '/health/live', agent: false }, (answer) => {
        answer.resume();
        this.down.delete(backend.name);
        clearInterval(timer);
      });
      probe.on('error', () => undefined);
      probe.end();
    }, 250);
    timer.unref();
  }
}
