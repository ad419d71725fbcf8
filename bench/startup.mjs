// The `startup` scenario (issue 32): how long the app takes from process start to `/health/ready`
// answering 200, and how much memory it holds idle and after a run of calls — embedded (PGlite in
// DATA_DIR) and distributed (PostgreSQL + Redis). What an autoscaler adding a replica waits for,
// and what a newcomer's first `npm start` pays. Run alone with `node bench/startup.mjs [--quick]`,
// or as part of `npm run bench` (bench/run.mjs), which adds its targets to the others.
//
// The process is the real entry point, the production bundle (scripts/app-entry.mjs), as `npm
// start` runs it (its start-up checks, its logger), not a fixture; a checkout built before the
// bundle (`--against`) runs its `dist/src/main.js`. It runs on one core (taskset -c 0, when there
// is more than one: the load generator and this script use the other), so a start on a machine
// shared with other work is timed as the same amount of work. Each start is a new process; the embedded topology is
// measured twice: a first start (an empty DATA_DIR: the database is created) and restarts (the
// same DATA_DIR again). The distributed replicas share a schema the first of them migrated.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { APP_ENTRY } from '../scripts/app-entry.mjs';
import { freePort } from '../scripts/free-port.mjs';
import { cpuMs, median, pinLoadGenerator, rssMb, sleep, stop } from './helpers.mjs';
import { startSpeedProbe } from './speed-probe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const POLL_MS = 10;
const PINNED =
  availableParallelism() > 1 && spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

/** `node <entry>` of a built checkout, on core 0 when pinned. */
function appCommand(build) {
  const entry = join(build, existsSync(join(build, APP_ENTRY)) ? APP_ENTRY : 'dist/src/main.js');
  return PINNED ? ['taskset', ['-c', '0', process.execPath, entry]] : [process.execPath, [entry]];
}

/** GET /health/ready once: its status, or 0 when nothing answers yet. */
const readyStatus = (port) =>
  new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health/ready', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
    req.end();
  });

/**
 * Starts one process of the app and waits for /health/ready 200; the time from spawn to that answer.
 * The answer counts once the child has said it listens on that port (its banner): on a machine
 * shared with other test runs, another process may take the port between the probe and the bind.
 */
async function startOnce(env, build = root, attempts = 3) {
  const port = await freePort();
  const started = performance.now();
  const [command, args] = appCommand(build);
  const child = spawn(command, args, {
    cwd: build,
    env: { ...process.env, NODE_ENV: 'development', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  const banner = `Kadu listening on http://127.0.0.1:${port}`;
  child.stdout.on('data', (chunk) => {
    if (listening) return;
    stdout += chunk;
    if (stdout.includes(banner)) listening = true;
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) {
      if (attempts > 1 && stderr.includes('already in use')) return startOnce(env, build, attempts - 1);
      throw new Error(`the app exited before it was ready: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    if (listening && (await readyStatus(port)) === 200) break;
    await sleep(POLL_MS);
  }
  const readyMs = performance.now() - started;
  return { child, port, readyMs, cpuMsAtReady: cpuMs(child.pid), stop: () => stop(child, 10_000) };
}

/** `calls` MCP `tools/call` of kadu_me_get (a real tool: token check, membership, a database read). */
async function callMany(port, dataDir, env, calls) {
  const token = spawnSync(
    process.execPath,
    [
      join(root, 'dist/src/cli/token.js'),
      '--org',
      'bench',
      '--user',
      'bench@bench.test',
      '--role',
      'admin',
      '--aud',
      'mcp',
    ],
    { cwd: root, env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: String(port) }, encoding: 'utf8' },
  ).stdout.trim();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    connections: 16,
    amount: calls,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'kadu_me_get',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'kadu_me_get',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  if (result.non2xx || result.errors)
    throw new Error(`startup: ${result.non2xx} non-2xx and ${result.errors} errors over ${calls} calls`);
}

/**
 * `runs` starts of one topology: time to ready (median, max), CPU spent by then, RSS idle (once
 * ready and settled) and, for the last start, RSS after `calls` calls. With several builds
 * (`--against`), their starts alternate (A B A B…), so a slow spell of the machine falls on both.
 */
async function measureTopology(label, runs, calls, envFor, settleMs, builds, probe) {
  const perBuild = new Map(builds.map((b) => [b.name, { samples: [], afterCalls: undefined }]));
  for (let i = 0; i < runs; i++) {
    for (const build of builds) {
      const { env, dataDir } = envFor(i, build);
      // The machine's speed just before the start (speed-probe.mjs): a start in a slow spell shows.
      const probeUs = await probe.measure();
      const app = await startOnce(env, build.root);
      const into = perBuild.get(build.name);
      try {
        await sleep(settleMs);
        into.samples.push({
          readyMs: app.readyMs,
          cpuMsAtReady: app.cpuMsAtReady,
          rssIdleMb: rssMb(app.child.pid),
          probeUs,
        });
        if (i === runs - 1 && calls) {
          await callMany(app.port, dataDir, env, calls);
          await sleep(settleMs);
          into.afterCalls = rssMb(app.child.pid);
        }
      } finally {
        await app.stop();
      }
    }
  }
  return builds.map((build) => {
    const { samples, afterCalls } = perBuild.get(build.name);
    return {
      build: build.name,
      ...summarise(`${label}${builds.length > 1 ? ` (${build.name})` : ''}`, samples, afterCalls, calls),
    };
  });
}

function summarise(label, samples, afterCalls, calls) {
  const result = {
    ready_ms_median: median(samples.map((s) => s.readyMs)),
    ready_ms_max: Math.max(...samples.map((s) => s.readyMs)),
    cpu_ms_at_ready_median: median(samples.map((s) => s.cpuMsAtReady)),
    rss_idle_mb: median(samples.map((s) => s.rssIdleMb)),
    ...(afterCalls === undefined ? {} : { [`rss_after_${calls}_calls_mb`]: afterCalls }),
  };
  console.log(
    `${label.padEnd(28)} ready ${samples.map((s) => s.readyMs.toFixed(0)).join(' ')} ms   RSS idle ${samples.map((s) => s.rssIdleMb.toFixed(0)).join(' ')} MB${afterCalls === undefined ? '' : `   after ${calls} calls ${afterCalls.toFixed(0)} MB`}   speed probe before each ${samples.map((s) => (s.probeUs / 1000).toFixed(1)).join(' ')} ms`,
  );
  return { result, samples };
}

const RATES = {
  KADU_RATE_GENERAL: '1000000000/60',
  KADU_RATE_WRITES: '1000000000/60',
  KADU_RATE_FAILED_AUTH: '1000000000/60',
};

/**
 * The scenario. `distributed` is `{ pgUrl, redisUrl, schema, prefix }` or undefined (not reachable);
 * `against`, another built checkout measured alternately with this one (its values prefixed
 * `against_`, and `vs_against` ratios this ÷ that). Returns the STARTUP values (also printed) and the raw samples.
 */
export async function runStartup({ quick, distributed, against }) {
  const probe = await startSpeedProbe(PINNED ? 0 : undefined);
  try {
    return await measureStartups({ quick, distributed, against }, probe);
  } finally {
    probe.stop();
  }
}

/** The scenario's starts, the speed probe read before each. */
async function measureStartups({ quick, distributed, against }, probe) {
  const runs = quick ? 3 : 7;
  const calls = 10_000;
  const settleMs = quick ? 1000 : 2000;
  const builds = [{ name: 'this', root }, ...(against ? [{ name: 'against', root: against }] : [])];
  console.log(
    `startup: ${runs} starts per topology (${APP_ENTRY}${PINNED ? ' on core 0' : ''}, to /health/ready 200), RSS ${settleMs} ms after ready and after ${calls} MCP calls${against ? `; alternating with ${against}` : ''}`,
  );
  const values = {};
  const raw = {};
  const put = (prefix, results) => {
    for (const { build, result, samples } of results) {
      const key = build === 'this' ? prefix : `against_${prefix}`;
      raw[key] = samples;
      for (const [name, value] of Object.entries(result)) values[`${key}_${name}`] = value;
    }
  };
  // A first start: an empty DATA_DIR each time (the embedded database is created).
  const fresh = new Map();
  put(
    'embedded_first_start',
    await measureTopology(
      'embedded, first start',
      runs,
      0,
      (i, build) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'kadu-startup-'));
        if (!fresh.has(build.name)) fresh.set(build.name, dataDir);
        return { dataDir, env: { ...RATES, DATA_DIR: dataDir } };
      },
      settleMs,
      builds,
      probe,
    ),
  );
  // Restarts: the DATA_DIR of each build's first start above, again.
  put(
    'embedded',
    await measureTopology(
      'embedded, restart',
      runs,
      calls,
      (i, build) => ({ dataDir: fresh.get(build.name), env: { ...RATES, DATA_DIR: fresh.get(build.name) } }),
      settleMs,
      builds,
      probe,
    ),
  );
  if (distributed) {
    // One signing key for every replica, as the start-up checks require (startup-check.ts).
    const shared = {
      ...RATES,
      DATABASE_URL: distributed.pgUrl,
      DATABASE_SCHEMA: distributed.schema,
      REDIS_URL: distributed.redisUrl,
      REDIS_PREFIX: distributed.prefix,
      DEV_SIGNING_KEY_FILE: join(fresh.get('this'), 'dev-signing-key.json'),
    };
    // The first replica migrates the schema; the replicas measured start on a migrated one.
    const first = await startOnce({ ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'kadu-startup-dist-')) });
    await first.stop();
    console.log(`distributed, migrating start ready ${first.readyMs.toFixed(0)} ms`);
    values.distributed_migrating_start_ready_ms = first.readyMs;
    put(
      'distributed',
      await measureTopology(
        'distributed replica',
        runs,
        calls,
        () => {
          const replicaDir = mkdtempSync(join(tmpdir(), 'kadu-startup-dist-'));
          return { dataDir: replicaDir, env: { ...shared, DATA_DIR: replicaDir } };
        },
        settleMs,
        builds,
        probe,
      ),
    );
  }
  if (against)
    for (const name of Object.keys(values))
      if (values[`against_${name}`] !== undefined)
        values[`${name}_vs_against`] = values[name] / values[`against_${name}`];
  for (const [name, value] of Object.entries(values))
    console.log(`STARTUP ${name} ${name.endsWith('_vs_against') ? value.toFixed(2) : value.toFixed(0)}`);
  return { values, raw };
}

/** The targets of issue 32 (reported, not a test). */
export const STARTUP_TARGETS = {
  embedded_ready_ms_median: ['<=', 2500],
  embedded_first_start_ready_ms_median: ['<=', 2500],
  embedded_rss_idle_mb: ['<=', 300],
  embedded_first_start_rss_idle_mb: ['<=', 300],
  distributed_ready_ms_median: ['<=', 1000],
  distributed_rss_idle_mb: ['<=', 120],
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  pinLoadGenerator(); // this script and its load on core 1, the app on core 0
  const { benchDistributed, dropDistributed } = await import('./distributed-fixture.mjs');
  const distributed = await benchDistributed();
  try {
    const at = process.argv.indexOf('--against');
    const { values } = await runStartup({
      quick: process.argv.includes('--quick'),
      distributed,
      against: at > 0 ? process.argv[at + 1] : undefined,
    });
    const missed = Object.entries(STARTUP_TARGETS).filter(
      ([name, [op, target]]) => name in values && !(op === '<=' ? values[name] <= target : values[name] >= target),
    );
    console.log(
      missed.length
        ? `startup targets NOT met: ${missed.map(([name, [op, t]]) => `${name} ${op} ${t}`).join(', ')}`
        : 'every startup target met',
    );
  } finally {
    if (distributed) await dropDistributed(distributed);
  }
}
