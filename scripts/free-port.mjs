// A free loopback port, for the processes the tests, the bench and the conformance run start on a
// port they must name before it is bound (an app's PUBLIC_BASE_URL, PgBouncer's listen_port).
import { createServer } from 'node:net';

/**
 * An ephemeral port the kernel has just handed out. It is free when picked, not when the caller
 * binds it: another process can take it in between, so a caller that can meet parallel processes
 * picks again when it is taken and waits for its own server's word that it listens
 * (docs/contributors/testing.md).
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
