import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An answer as a client receives it. */
export interface Answer {
  status: number;
  statusMessage: string;
  /** Every header line as received, in order: [name, value, name, value…]. */
  raw: string[];
  body: string;
}

/**
 * A real HTTP server (Node's, or any app given as its handler: an Express app is one) whose next
 * request is answered by the handler given to `exchange`: for specs of how a response is written.
 */
export function answerServer(): {
  exchange(handler: Handler): Promise<Answer>;
  close(): Promise<void>;
} {
  let current: Handler = () => undefined;
  const server = createServer((req, res) => current(req, res));
  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    async exchange(handler) {
      await listening;
      current = handler;
      const port = (server.address() as AddressInfo).port;
      return new Promise((resolve, reject) => {
        const req = httpRequest({ port, host: '127.0.0.1', path: '/', method: 'GET', agent: false }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, raw: res.rawHeaders, body }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    },
    async close() {
      await listening;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An answer's header lines but Node's own (Date, Connection, Keep-Alive, Transfer-Encoding). */
export function headerLines(answer: Answer): [string, string][] {
  const own = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
  const out: [string, string][] = [];
  for (let i = 0; i < answer.raw.length; i += 2)
    if (!own.has(answer.raw[i]!.toLowerCase())) out.push([answer.raw[i]!, answer.raw[i + 1]!]);
  return out;
}
