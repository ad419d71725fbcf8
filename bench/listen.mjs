// npm run bench:listen — subscriptions/listen across replicas (issue 21). Two replicas of the
// module on one Redis event bus: 1 000 listeners hold SSE streams on replica L, replica P publishes
// `notifications/resources/updated` at a steady rate. Reported: delivery latency (publish on P to
// the event read by the listener here), L's memory per listener, and L's tools/call throughput
// with the listeners open against without, in interleaved rounds (the RATIO line), and L's CPU
// per delivery (a quiet window with the listeners open and no calls: L's CPU time / events read).
// LISTEN_CPU_PROF=<dir>: L runs under --cpu-prof and writes its profile there when it stops
// (bench/profile-summary.mjs reads it). LISTEN_ROOT=<checkout>: L runs that built checkout's
// dist/ (an A/B of the delivery path against another build, e.g. a clone of main).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cannon as post,
  cpuMs,
  cpuTimes,
  here,
  median,
  modern,
  pin,
  pinLoadGenerator,
  root,
  rssMb,
  start as startFixture,
  stop,
} from './helpers.mjs';

const QUICK = process.argv.includes('--quick');
const CFG = QUICK
  ? { listeners: 1000, items: 10, rate: 20, warmup: 5, rounds: 3, duration: 2, quiet: 2, connections: 16 }
  : { listeners: 1000, items: 10, rate: 20, warmup: 10, rounds: 6, duration: 3, quiet: 3, connections: 16 };
const CPU_PROF = process.env.LISTEN_CPU_PROF;
const L_ROOT = process.env.LISTEN_ROOT ?? root;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PIN = pinLoadGenerator();
const resultsDir = join(here, 'results');
mkdirSync(resultsDir, { recursive: true });

/** A replica of the listen fixture, pinned to `core` once ready. */
const start = (label, env, core, { cwd = root, flags = [] } = {}) =>
  startFixture(label, [...flags, 'dist/bench/fixtures/listen.main.js'], { env, cwd, core: PIN ? core : undefined });
const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** The listeners' process (bench/listen-clients.mjs): one IPC request, one reply. */
function clients(url) {
  const child = fork(join(here, 'listen-clients.mjs'), [url, String(CFG.items)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (PIN) pin(child.pid, 1);
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const ready = next();
  return {
    ready,
    ask: (command) => {
      const reply = next();
      child.send(command);
      return reply;
    },
    stop: () => child.kill(),
  };
}

const cannon = (url, req, duration) => post(url, req, { connections: CFG.connections, duration });

console.log(
  `bench:listen ${QUICK ? 'quick' : 'full'} — ${CFG.listeners} listeners on ${CFG.items} URIs, ${CFG.rate} events/s published on another replica, ${CFG.rounds} interleaved rounds × ${CFG.duration} s, ${CFG.connections} connections; node ${process.version}`,
);
console.log(
  PIN ? 'listening replica on core 0; publisher, listeners and load generator on core 1 (taskset)' : 'not pinned',
);
const prefix = `bench-listen-${randomBytes(6).toString('hex')}:`;
const L = await start('listening replica', { REDIS_URL, REDIS_PREFIX: prefix }, 0, {
  cwd: L_ROOT,
  flags: CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [],
});
if (L_ROOT !== root) console.log(`listening replica from ${L_ROOT}`);
if (CPU_PROF) console.log(`listening replica profiled into ${CPU_PROF}`);
const P = await start(
  'publishing replica',
  { REDIS_URL, REDIS_PREFIX: prefix, PUBLISH_RATE: String(CFG.rate), ITEMS: String(CFG.items) },
  1,
);
const call = modern('tools/call', { name: 'bench_echo', arguments: { text: 'hello', times: 2 } });
const latencies = [];
const rounds = [];
const listeners = clients(L.url);
await listeners.ready;
try {
  await cannon(`${L.url}/mcp`, call, CFG.warmup);
  // Requests completed per second of the run (autocannon's per-second average reads 0 when a
  // loaded machine completes nothing within one of its one-second samples).
  const rps = (r) => r.requests.total / CFG.duration;
  const measured = async () => {
    const cpu = cpuMs(L.child.pid);
    const r = await cannon(`${L.url}/mcp`, call, CFG.duration);
    return { ...r, cpuUsPerRequest: ((cpuMs(L.child.pid) - cpu) * 1000) / r.requests.total };
  };
  const baseline = measured;
  for (let i = 0; i < CFG.rounds; i++) {
    // Odd rounds measure the baseline after the listeners have gone, even ones before they come.
    let without = i % 2 === 0 ? await baseline() : undefined;
    const before = rssMb(L.child.pid);
    const { opened } = await listeners.ask({ open: CFG.listeners });
    if (opened !== CFG.listeners) throw new Error(`${opened} listeners opened, not ${CFG.listeners}`);
    const open = rssMb(L.child.pid);
    // L's CPU per delivery: a window with no calls, only the events flowing to the open streams.
    await listeners.ask({ count: true });
    const quietCpu = cpuTimes(L.child.pid);
    await new Promise((r) => setTimeout(r, CFG.quiet * 1000));
    const quietEnd = cpuTimes(L.child.pid);
    const quietMs = quietEnd.user + quietEnd.system - quietCpu.user - quietCpu.system;
    const { delivered } = await listeners.ask({ count: true });
    await listeners.ask({ measure: true });
    const withListeners = await measured();
    await listeners.ask({ measure: false });
    latencies.push(...(await listeners.ask({ close: true })).latencies);
    // Let the closed streams go before the baseline.
    await new Promise((r) => setTimeout(r, 2000));
    without ??= await baseline();
    rounds.push({
      without: rps(without),
      with: rps(withListeners),
      ratio: rps(withListeners) / rps(without),
      cpuUsWithout: without.cpuUsPerRequest,
      cpuUsWith: withListeners.cpuUsPerRequest,
      kibPerListener: ((open - before) * 1024) / CFG.listeners,
      cpuUsPerDelivery: (quietMs * 1000) / delivered,
      // The kernel's share (the write syscalls and, on loopback, the TCP receive path they run).
      systemUsPerDelivery: ((quietEnd.system - quietCpu.system) * 1000) / delivered,
    });
    const last = rounds.at(-1);
    console.log(
      `round ${i + 1}: tools/call ${Math.round(last.without)} req/s without, ${Math.round(last.with)} with ${CFG.listeners} listeners (×${last.ratio.toFixed(2)}); server CPU ${last.cpuUsWithout.toFixed(0)} → ${last.cpuUsWith.toFixed(0)} µs/call (deliveries included); RSS +${last.kibPerListener.toFixed(1)} KiB per listener; ${last.cpuUsPerDelivery.toFixed(1)} µs of L's CPU per delivery (${last.systemUsPerDelivery.toFixed(1)} in the kernel)`,
    );
  }
} finally {
  listeners.stop();
  await Promise.all([stop(L.child), stop(P.child)]);
}
const summary = {
  listeners: CFG.listeners,
  eventsPerSecond: CFG.rate,
  deliveries: latencies.length,
  latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) },
  kibPerListener: median(rounds.map((r) => r.kibPerListener)),
  rpsWithout: median(rounds.map((r) => r.without)),
  rpsWith: median(rounds.map((r) => r.with)),
  ratio: median(rounds.map((r) => r.ratio)),
  cpuUsWithout: median(rounds.map((r) => r.cpuUsWithout)),
  cpuUsWith: median(rounds.map((r) => r.cpuUsWith)),
  cpuUsPerDelivery: median(rounds.map((r) => r.cpuUsPerDelivery)),
  systemUsPerDelivery: median(rounds.map((r) => r.systemUsPerDelivery)),
  rounds,
};
writeFileSync(
  join(resultsDir, `listen-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
  JSON.stringify(summary, null, 2),
);
console.log(
  `delivery latency over ${summary.deliveries} deliveries: p50 ${summary.latencyMs.p50.toFixed(1)} ms, p99 ${summary.latencyMs.p99.toFixed(1)} ms, max ${summary.latencyMs.max.toFixed(1)} ms`,
);
console.log(`memory per listener (median RSS growth): ${summary.kibPerListener.toFixed(1)} KiB`);
console.log(
  `tools/call: ${Math.round(summary.rpsWithout)} req/s without listeners, ${Math.round(summary.rpsWith)} with (medians)`,
);
console.log(
  `server CPU per tools/call: ${summary.cpuUsWithout.toFixed(0)} µs without listeners, ${summary.cpuUsWith.toFixed(0)} µs with (the deliveries of that time included)`,
);
console.log(
  `L's CPU per delivery (median of ${rounds.length} quiet ${CFG.quiet} s windows, events only): ${summary.cpuUsPerDelivery.toFixed(1)} µs, ${summary.systemUsPerDelivery.toFixed(1)} µs of it in the kernel`,
);
console.log(`RATIO listen_tools_call_cpu_without_vs_with ${(summary.cpuUsWithout / summary.cpuUsWith).toFixed(2)}`);
console.log(`RATIO listen_tools_call_with_vs_without ${summary.ratio.toFixed(2)}`);
