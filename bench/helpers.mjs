// What every bench script shares (issue 30, last point): starting and stopping a fixture process,
// /proc readings, medians, the load loop, and the MCP requests — built by the module's own
// @kobana/nest-mcp/testing builders, so the bench sends what the tests send.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..');

/** The echo every scenario serves, and its arguments. */
export const ARGS = { text: 'hello', times: 2 };

/**
 * Servers on core 0 and the load generator (this process) on core 1, when the machine has two
 * cores and taskset: a fast server is then not slowed by the load it provokes in autocannon.
 */
export function pinLoadGenerator() {
  return (
    availableParallelism() >= 2 &&
    spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' }).status === 0
  );
}

export function pin(pid, core) {
  spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

/**
 * Starts a fixture (`node <args>` in `cwd`, or `<under…> node <args>`) and waits for its `READY
 * {json}` line, killing it if none comes within `readyWithinMs`; pinned to `core` once ready (all
 * its threads), so start-up itself may use both cores. `core: undefined` leaves it.
 */
export async function start(label, args, { env = {}, cwd = root, core, under = [], readyWithinMs = 120_000 } = {}) {
  // `under`: a command that runs node (valgrind for instructions.mjs), or none.
  const [command, ...prefix] = [...under, process.execPath];
  const child = spawn(command, [...prefix, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise((resolve, reject) => {
    let out = '';
    const late = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} was not ready within ${readyWithinMs} ms`));
    }, readyWithinMs);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /READY (\{.*\})/.exec(out);
      if (m) {
        clearTimeout(late);
        resolve(JSON.parse(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(late);
      reject(new Error(`${label} exited (${code}) before it was ready`));
    });
  });
  if (core !== undefined) pin(child.pid, core);
  return { ...ready, child, url: `http://127.0.0.1:${ready.port}`, stop: () => stop(child) };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export function stop(child, graceMs = 5000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}

/** Server CPU time (user and system, 10 ms ticks) from /proc: cost independent of the load generator's. */
export function cpuTimes(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

export function cpuMs(pid) {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

export const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A warm-up of `seconds` as three load runs, each on connections of its own: the first time its
 * connections close, a server's V8 drops the code it made for Node's socket and stream paths (a
 * wrong map at destroy) and makes it again. After one long run that happened in the first two
 * measured rounds, which then counted the compiler's work — two of the quick run's three
 * (bench/RESULTS.md, issue 32, sixteenth pass). The last two runs take a second each, so a
 * warm-up asked for under 3 s lasts 3.
 */
export const warmupRuns = (seconds) => [Math.max(1, seconds - 2), 1, 1];

/**
 * POSTs `request` with autocannon (`extra`: duration or amount); any non-2xx answer or error throws,
 * since the scenario would then not measure what it says.
 */
export async function cannon(url, request, { connections = 16, ...extra } = {}) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    headers: request.headers,
    body: request.body,
    ...extra,
  });
  if (result.non2xx || result.errors)
    throw new Error(
      `${url}: ${result.non2xx} non-2xx and ${result.errors} errors — the scenario is not measuring what it says`,
    );
  return result;
}

// What the official TypeScript client sends (Node's fetch adds it): list pages over 1 KiB then come
// gzip-coded, compressed once per page (libs/mcp/src/protocol/gzip-splice.ts); small answers never are.
const ACCEPT_ENCODING = 'gzip, deflate';

/** A fixed request (id 1, no clientInfo), its body as text, for autocannon to send over and over. */
function fixed({ headers, body }, extraHeaders) {
  return { headers: { ...headers, 'Accept-Encoding': ACCEPT_ENCODING, ...extraHeaders }, body: JSON.stringify(body) };
}

/** A 2026-07-28 request (the `_meta` envelope and its mirrored headers), optionally with a bearer token. */
export const modern = (method, params, token) =>
  fixed(
    modernRequest(method, params, { id: 1, clientInfo: null }),
    token ? { Authorization: `Bearer ${token}` } : undefined,
  );

/** A 2025-06-18 request. */
export const legacy = (method, params, token) =>
  fixed(legacyRequest(method, params, { id: 1 }), token ? { Authorization: `Bearer ${token}` } : undefined);

/** The echo through the REST door of the Kadu app. */
export const restEcho = (token) => ({
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify(ARGS),
});

/**
 * Like the tests (test/support/requirements.ts): a scenario that needs PostgreSQL or Redis is left
 * out with the reason printed when they are not reachable — and the run fails when CI is set.
 */
export function skipOrFail(scenario, missing) {
  if (process.env.CI) throw new Error(`CI requires ${missing} for ${scenario}, which is unavailable`);
  console.log(`SKIPPED ${scenario} (needs ${missing})`);
}

/**
 * A local OTLP/HTTP receiver for the traced fixtures (run.mjs, compare-builds.mjs TRACED=1): it
 * reads and counts what the app exports (`bytes.traces`, `bytes.metrics`) and answers 200 `{}`.
 * `env` is what a traced fixture is started with, on top of its usual environment.
 */
export async function otlpSink() {
  const bytes = { traces: 0, metrics: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (bytes[req.url === '/v1/metrics' ? 'metrics' : 'traces'] += chunk.length));
    // Answered in the request's encoding, as a collector does (an empty protobuf response is no bytes).
    const type =
      req.headers['content-type'] === 'application/x-protobuf' ? 'application/x-protobuf' : 'application/json';
    req.on('end', () => res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : ''));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${server.address().port}` };
  return { bytes, env, close: () => new Promise((resolve) => server.close(resolve)) };
}
