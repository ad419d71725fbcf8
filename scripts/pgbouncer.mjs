// PgBouncer (Debian's package, installed by .ci/run) in front of a PostgreSQL server, on an
// ephemeral loopback port: the pooler operators put in front of PostgreSQL, started by the test
// pass (scripts/test-distributed.mjs) and by the tests about it (test/kadu/pgbouncer.e2e-spec.ts).
// Trust authentication, like the test server it fronts; no Unix socket, no file outside its folder.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.mjs';

export const PGBOUNCER_BIN = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Undefined when PgBouncer can run here, else why not. */
export function pgbouncerMissing() {
  const probe = spawnSync(PGBOUNCER_BIN, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : `PgBouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer)`;
}

/**
 * Starts PgBouncer in `mode` (transaction, statement or session pooling) in front of `targetUrl`'s
 * server; resolves to the URL that reaches `targetUrl`'s database through it and a stop function.
 * `poolSize` server connections per database and user: fewer than the clients, so it pools.
 * `ignoreStartupParameters`: the usual workaround for clients that send them (dropped, not refused).
 * `pickPort`: where ports come from (a free one; its test hands in one already taken).
 */
export async function startPgbouncer(
  targetUrl,
  { mode = 'transaction', poolSize = 20, ignoreStartupParameters = [], pickPort = freePort } = {},
) {
  const target = new URL(targetUrl);
  const dir = mkdtempSync(join(tmpdir(), 'kadu-pgbouncer-'));
  // PgBouncer refuses to run as root: as root it switches to `user`, who must read its folder.
  chmodSync(dir, 0o755);
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`, { mode: 0o644 });
  const settings = [
    '[databases]',
    `* = host=${target.hostname} port=${target.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pool_mode = ${mode}`,
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 1000',
    ...(ignoreStartupParameters.length ? [`ignore_startup_parameters = ${ignoreStartupParameters.join(',')}`] : []),
    ...(process.getuid?.() === 0 ? ['user = postgres'] : []),
  ];
  let started;
  try {
    // The port is free when picked, not when PgBouncer binds it: another process can take it in
    // between (the tests run in parallel), and then PgBouncer exits and another port is tried.
    for (let attempt = 1; !started; attempt++) {
      const port = await pickPort();
      const run = await launch(dir, [...settings, `listen_port = ${port}`], port);
      if (run.child) started = { ...run, port };
      else if (!run.taken || attempt === 3)
        throw new Error(`PgBouncer did not start (${run.why}): ${run.log.trim().split('\n').slice(-3).join(' | ')}`);
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { child, exited, port } = started;
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

/**
 * Runs PgBouncer on `settings` until it says it listens on `port`: its own line, so that another
 * process answering on the port is never taken for it. Resolves to the running child, or to its
 * log and why not once it has exited (`taken`: the port was in use) or was stopped after 5 s.
 */
async function launch(dir, settings, port) {
  writeFileSync(join(dir, 'pgbouncer.ini'), `${settings.join('\n')}\n`, { mode: 0o644 });
  const child = spawn(PGBOUNCER_BIN, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // A binary that cannot be spawned is told by `close` too, with an empty log.
  child.once('error', () => {});
  // After its log is read to the end (`exit` can come before the last of stderr).
  const closed = new Promise((resolve) => child.once('close', () => resolve(false)));
  let log = '';
  const listening = new Promise((resolve) => {
    child.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-4000);
      if (log.includes(`LOG listening on 127.0.0.1:${port}\n`)) resolve(true);
    });
  });
  let timer;
  const up = await Promise.race([
    listening,
    closed,
    new Promise((resolve) => (timer = setTimeout(resolve, 5000, undefined))),
  ]);
  clearTimeout(timer);
  if (up) return { child, exited };
  child.kill('SIGKILL');
  await closed;
  const taken = log.includes(`cannot listen on 127.0.0.1:${port}: bind(): Address already in use`);
  const why = taken ? 'its port was taken' : up === undefined ? 'no "listening on" line in 5 s' : 'it exited';
  return { log, taken, why };
}
