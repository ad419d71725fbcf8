import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
}

/** A local HTTP endpoint that records deliveries and answers the statuses it is told to. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Statuses to answer, in order; 200 once exhausted. */
  script: number[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
        res.statusCode = this.script.shift() ?? 200;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as { port: number }).port}/hook`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  async waitFor(count: number): Promise<Received[]> {
    const deadline = performance.now() + 10_000;
    while (this.received.length < count) {
      if (performance.now() > deadline) throw new Error(`only ${this.received.length} of ${count} deliveries arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received;
  }
}

export function signatureOf(secret: string, raw: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}
