import { createServer } from 'node:net';

/**
 * An ephemeral port the kernel has just handed out. It is free when picked, not when the caller
 * binds it: another test process can take it in between, so callers that listen on it pick again
 * when it is taken (replicas.ts `startOnFreePort`, kadu-app.ts `startKaduOnFreePort`; the
 * scripts' PgBouncer keeps a copy, scripts/pgbouncer.mjs, as a script cannot import this file).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
