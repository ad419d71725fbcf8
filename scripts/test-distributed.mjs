// Second test pass: the distributed topology. First the Kadu domain and wire tests against a real
// PostgreSQL (data), Redis (MCP state store, execution queue) and an S3-compatible server (files),
// then the multi-replica suite (three app processes behind a balancer). When a service is unreachable
// it fails in CI (CI set: .ci/run starts both first) and, outside CI, skips the pass saying why.
//
// PostgreSQL is reached through PgBouncer in transaction pooling (scripts/pgbouncer.mjs, started
// here on an ephemeral port), as operators deploy it: every transaction may get another server
// connection, so anything that leaned on session state fails here. KADU_TEST_PGBOUNCER=off runs
// the pass on the direct connection.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import pg from 'pg';
import { pgbouncerMissing, startPgbouncer } from './pgbouncer.mjs';

const pgUrl = process.env.KADU_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.KADU_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const hide = (url) => url.replace(/\/\/[^@]*@/, '//…@');

function skipOrFail(reason) {
  if (process.env.CI) {
    console.error(`test:distributed FAILED: ${reason}; CI must run the distributed pass`);
    process.exit(1);
  }
  console.warn(
    `test:distributed SKIPPED (the whole second pass, test/kadu and test/e2e on PostgreSQL + Redis): ${reason}`,
  );
  process.exit(0);
}

try {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  await client.query('select 1');
  await client.end();
} catch (error) {
  skipOrFail(`PostgreSQL at ${hide(pgUrl)} is unreachable (${error.message})`);
}
const { hostname, port } = new URL(redisUrl);
const redisUp = await new Promise((resolve) => {
  const socket = createConnection({ host: hostname, port: Number(port || 6379), timeout: 3000 });
  socket.once('connect', () => {
    socket.end();
    resolve(true);
  });
  socket.once('error', () => resolve(false));
  socket.once('timeout', () => {
    socket.destroy();
    resolve(false);
  });
});
if (!redisUp) skipOrFail(`Redis at ${hide(redisUrl)} is unreachable`);

const throughPgbouncer = process.env.KADU_TEST_PGBOUNCER !== 'off';
if (throughPgbouncer && pgbouncerMissing())
  skipOrFail(`${pgbouncerMissing()} is missing (KADU_TEST_PGBOUNCER=off: direct)`);
// Three replicas × 10 connections and every parallel test app share 20 server connections.
const bouncer = throughPgbouncer ? await startPgbouncer(pgUrl, { mode: 'transaction', poolSize: 20 }) : undefined;

// The object store: a local S3-compatible server on an ephemeral port, served by this process
// (so the test runs below are spawned asynchronously), with the bucket the tests share.
const s3Dir = mkdtempSync(join(tmpdir(), 'kadu-s3-pass-'));
const s3 = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory: s3Dir,
  silent: true,
  configureBuckets: [{ name: 'kadu-distributed' }],
});
const s3Endpoint = `http://127.0.0.1:${(await s3.run()).port}`;

const env = {
  ...process.env,
  KADU_TEST_TOPOLOGY: 'distributed',
  KADU_TEST_DATABASE_URL: bouncer?.url ?? pgUrl,
  KADU_TEST_DATABASE_DIRECT_URL: pgUrl,
  KADU_TEST_REDIS_URL: redisUrl,
  KADU_TEST_S3_ENDPOINT: s3Endpoint,
  KADU_TEST_S3_BUCKET: 'kadu-distributed',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
const vitest = (args) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
      stdio: 'inherit',
      env,
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

// `node scripts/test-distributed.mjs <files…>` runs only those files in this topology (no replicas):
// what a developer, or `npm run fuzz:explore` with FUZZ_TOPOLOGY=distributed, needs for one suite.
const only = process.argv.slice(2);
const via = bouncer ? ` through PgBouncer (transaction pooling, ${bouncer.url.replace(/\/\/[^@]*@/, '//')})` : '';
let status;
try {
  if (only.length) {
    console.log(`test:distributed: ${only.join(', ')} against PostgreSQL${via}, Redis and an S3-compatible server`);
    status = await vitest(only);
  } else {
    console.log(
      `test:distributed: the Kadu tests against PostgreSQL ${hide(pgUrl)}${via}, Redis ${hide(redisUrl)} and an S3-compatible server (${s3Endpoint})`,
    );
    status = await vitest(['test/kadu', 'test/e2e']);
    console.log('test:distributed: three replicas behind a balancer (test/replicas)');
    status = (await vitest(['--config', 'vitest.replicas.config.mts'])) || status;
  }
} finally {
  await bouncer?.stop();
  await s3.close();
  rmSync(s3Dir, { recursive: true, force: true });
}
process.exit(status);
