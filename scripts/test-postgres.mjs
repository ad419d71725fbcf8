// Second test pass: the Kadu domain and wire tests against a real PostgreSQL (the distributed
// topology's store). Skips, saying why, only when the server is unreachable outside CI.
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const url = process.env.KADU_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
try {
  await client.connect();
  await client.query('select 1');
  await client.end();
} catch (error) {
  const reason = `PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//…@')} is unreachable (${error.message})`;
  if (process.env.CI) {
    console.error(`test:postgres FAILED: ${reason}`);
    process.exit(1);
  }
  console.log(`test:postgres SKIPPED: ${reason}`);
  process.exit(0);
}
console.log(`test:postgres: running the Kadu tests against ${url.replace(/\/\/[^@]*@/, '//…@')}`);
const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/kadu', 'test/e2e'], {
  stdio: 'inherit',
  env: { ...process.env, KADU_TEST_DATABASE_URL: url },
});
process.exit(run.status ?? 1);
