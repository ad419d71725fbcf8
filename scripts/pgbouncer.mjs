// PgBouncer (Debian's package, installed by .ci/run) in front of a PostgreSQL server, on an
// ephemeral loopback port: the pooler operators put in front of PostgreSQL, started by the test
// pass (scripts/test-distributed.mjs) and by the tests about it (test/kadu/pgbouncer.e2e-spec.ts).
// Trust authentication, like the test server it fronts; no Unix socket, no file outside its folder.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Undefined when PgBouncer can run here, else why not. */
export function pgbouncerMissing() {
  const probe = spawnSync(PGBOUNCER_BIN, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : `PgBouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer)`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts PgBouncer in `mode` (transaction, statement or session pooling) in front of `targetUrl`'s
 * server; resolves to the URL that reaches `targetUrl`'s database through it and a stop function.
 * `poolSize` server connections per database and user: fewer than the clients, so it pools.
 * `ignoreStartupParameters`: the usual workaround for clients that send them (dropped, not refused).
 */
export async function startPgbouncer(
  targetUrl,
  { mode = 'transaction', poolSize = 20, ignoreStartupParameters = [] } = {},
) {
  const target = new URL(targetUrl);
  const dir = mkdtempSync(join(tmpdir(), 'kadu-pgbouncer-'));
  // PgBouncer refuses to run as root: as root it switches to `user`, who must read its folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  const ini = [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pool_mode = ${mode}`,
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 1000',
    ...(ignoreStartupParameters.length ? [`ignore_startup_parameters = ${ignoreStartupParameters.join(',')}`] : []),
    ...(process.getuid?.() === 0 ? ['user = postgres'] : []),
  ].join('\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
  const child = spawn(PGBOUNCER_BIN, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 100 && child.exitCode === null && !(await accepts(port)); i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (child.exitCode !== null || !(await accepts(port))) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PgBouncer did not start: ${log.trim().split('\n').slice(-3).join(' | ')}`);
  }
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    async stop() {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
