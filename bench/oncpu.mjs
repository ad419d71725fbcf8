// node bench/oncpu.mjs [door] [other door] [--top N] [--callers NAME[,NAME…]] — where a call's CPU
// goes, kernel included: Linux perf samples the Kadu app's process every millisecond of CPU it uses (the `cpu-clock` software
// event, which machines without hardware counters have too) while autocannon loads one door, and
// each sample's stack is read back (the fixture runs with --perf-basic-prof-only-functions, whose
// map names the JIT's code). Doors: mcp (the default), rest, mcp-traced, rest-traced. With a second
// door, every line is the first less the second: `mcp-traced mcp` is what tracing adds, by function.
// With `--callers NAME[,NAME…]`, the samples whose own function's name contains NAME (a V8 builtin
// such as `FindOrderedHashMapEntry`, which has no source of its own) are also counted by the nearest
// JavaScript function on their stack: which code it ran for.
//
// Why beside `--profile`: V8's profiler samples time, not CPU, and put 40.8 % of the REST door's
// samples in `writev`, where perf found 17 % of its CPU under that call (bench/RESULTS.md, issue 32,
// twenty-eighth pass). Profiles inflate what they watch: read shares and differences, not
// absolute costs (the same runs' plain CPU per call is printed first).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARGS, cannon, cpuMs, here, modern, otlpSink, pinLoadGenerator, restEcho, start } from './helpers.mjs';
import { kaduFixture } from './kadu-bundle.mjs';

const argv = process.argv.slice(2);
const TOP = argv.includes('--top') ? Number(argv[argv.indexOf('--top') + 1]) : 25;
const CALLERS = argv.includes('--callers') ? (argv[argv.indexOf('--callers') + 1] ?? '').split(',') : [];
const DOORS = ['mcp', 'rest', 'mcp-traced', 'rest-traced'];
const doors = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--top' && argv[i - 1] !== '--callers');
if (doors.length === 0) doors.push('mcp');
const unknown = doors.find((d) => !DOORS.includes(d));
if (unknown || doors.length > 2 || !(TOP > 0) || CALLERS.includes('')) {
  console.error(
    `usage: node bench/oncpu.mjs [door] [other door] [--top N] [--callers NAME[,NAME…]]; doors: ${DOORS.join(', ')}`,
  );
  process.exit(2);
}
if (spawnSync('perf', ['--version']).status !== 0) {
  console.error("bench/oncpu.mjs needs Linux perf (Debian's linux-perf)");
  process.exit(2);
}
// Above 1, perf may not sample the kernel (then its row would read 0) unless run as root.
const paranoid = Number(readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8'));
if (paranoid > 1 && process.getuid?.() !== 0) {
  console.error(
    `bench/oncpu.mjs needs the kernel's frames: run it as root, or set kernel.perf_event_paranoid to 1 (it is ${paranoid})`,
  );
  process.exit(2);
}

/**
 * CPU per sample: perf's cpu-clock period, in nanoseconds of the task's CPU time. Every 250 µs, the
 * samples' unwinding added half of a REST call's CPU; every millisecond, about a tenth.
 */
const PERIOD_NS = 1_000_000;
const RECORDED_S = 6;
const PIN = pinLoadGenerator();

const app = await kaduFixture(join(here, '..'));
const profiles = [];
for (const door of doors) profiles.push(await profileDoor(door));
report(profiles);

/** One Kadu process serving `door`: warmed up, then measured plainly, then under perf. */
async function profileDoor(door) {
  const traced = door.endsWith('-traced');
  const sink = traced ? await otlpSink() : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'kadu-oncpu-'));
  let kadu;
  try {
    kadu = await start(door, ['--perf-basic-prof-only-functions', app], {
      env: {
        DATA_DIR: dataDir,
        KADU_RATE_GENERAL: '1000000000/60',
        KADU_RATE_WRITES: '1000000000/60',
        KADU_RATE_FAILED_AUTH: '1000000000/60',
        ...sink?.env,
      },
      core: PIN ? 0 : undefined,
    });
    const rest = door.startsWith('rest');
    const url = rest ? `${kadu.url}/api/v1/bench/echo` : `${kadu.url}/mcp`;
    const request = rest ? restEcho(kadu.api) : modern('tools/call', { name: 'bench_echo', arguments: ARGS }, kadu.mcp);
    // As run.mjs warms the traced doors (10 s), in three runs on connections of their own (helpers.mjs).
    for (const duration of [8, 1, 1]) await cannon(url, request, { duration });
    const before = cpuMs(kadu.child.pid);
    const plain = await cannon(url, request, { duration: 3 });
    const cpuUs = ((cpuMs(kadu.child.pid) - before) * 1000) / plain.requests.total;
    const data = join(dataDir, 'perf.data');
    const perf = spawn(
      'perf',
      ['record', '-e', 'cpu-clock', '-c', String(PERIOD_NS), '-g', '-o', data, '-p', String(kadu.child.pid)],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let perfErr = '';
    perf.stderr.on('data', (chunk) => (perfErr += chunk));
    const exited = new Promise((resolve) => perf.once('exit', resolve));
    // perf attaches to every thread before the load starts.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const load = await cannon(url, request, { duration: RECORDED_S });
    perf.kill('SIGINT');
    if ((await exited) !== 0 && !/Captured and wrote/.test(perfErr))
      throw new Error(`perf record failed: ${perfErr.trim()}`);
    const script = spawnSync('perf', ['script', '-i', data, '-F', 'ip,sym,dso'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
    return { door, cpuUs, calls: load.requests.total, ...tally(script.stdout) };
  } finally {
    await kadu?.stop();
    await sink?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (kadu) rmSync(`/tmp/perf-${kadu.child.pid}.map`, { force: true });
  }
}

/** Samples by the function they were in (self) and by every function on their stack (inclusive). */
function tally(text) {
  const self = new Map();
  const inclusive = new Map();
  const kinds = new Map();
  const callers = new Map(CALLERS.map((name) => [name, new Map()]));
  let samples = 0;
  for (const block of text.split('\n\n')) {
    const frames = block
      .split('\n')
      .map(frameOf)
      .filter((frame) => frame !== undefined);
    if (frames.length === 0) continue;
    samples++;
    add(self, frames[0].name);
    add(kinds, frames[0].kind);
    for (const name of new Set(frames.map((frame) => frame.name))) add(inclusive, name);
    for (const name of CALLERS)
      if (frames[0].name.includes(name))
        add(
          callers.get(name),
          frames.slice(1).find((frame) => frame.name.startsWith('JS '))?.name ?? '(no JavaScript frame)',
        );
  }
  return { samples, self, inclusive, kinds, callers };
}

function add(map, key) {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** `ip symbol+offset (dso)` → the function's name and what kind of code it is. */
function frameOf(line) {
  const m = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
  if (!m) return undefined;
  const name = m[1]
    .replace(/\+0x[0-9a-f]+$/, '')
    .replace(/^JS:[*~^]?/, 'JS ')
    .replace(/\/\S*\/(dist|node_modules)\//g, '$1/');
  const dso = m[2];
  const kind = dso.includes('kernel')
    ? 'kernel'
    : dso.includes('perf-')
      ? 'JavaScript (JIT)'
      : name.startsWith('Builtins_')
        ? "V8's builtins"
        : dso.endsWith('/node') || dso.endsWith('/nodejs') || dso.includes('libnode')
          ? "Node's and V8's C++"
          : 'libraries (libc, …)';
  return { name: name === '[unknown]' ? `[unknown in ${dso.split('/').pop()}]` : name, kind };
}

/** µs of CPU per call that `count` samples stand for in profile `p`. */
function perCall(p, count) {
  return (count * PERIOD_NS) / 1000 / p.calls;
}

function report([a, b]) {
  const label = b ? `${a.door} − ${b.door}` : a.door;
  console.log(
    `on-CPU profile (perf cpu-clock, a sample every ${PERIOD_NS / 1000} µs of CPU, ${RECORDED_S} s of load per door)`,
  );
  for (const p of [a, b].filter(Boolean))
    console.log(
      `${p.door.padEnd(12)} ${p.cpuUs.toFixed(1)} µs of CPU per call unprofiled; ${perCall(p, p.samples).toFixed(1)} under perf (${p.samples} samples, ${p.calls} calls)`,
    );
  for (const [title, key, top] of [
    ['by kind of code', 'kinds', Infinity],
    ['self, by function', 'self', TOP],
    ['inclusive (a JavaScript function and what it called)', 'inclusive', TOP],
    ...CALLERS.map((name) => [`${name}, by the nearest JavaScript function on its stack`, name, TOP]),
  ]) {
    // A section's counts: a tally of the profile, or the callers of one name.
    const counts = (p) => (p[key] instanceof Map ? p[key] : p.callers.get(key));
    console.log(`\n${title}, µs per call${b ? ` (${label})` : ''}:`);
    const names = new Set(
      [...counts(a).keys(), ...(b ? counts(b).keys() : [])].filter(
        (name) => key !== 'inclusive' || name.startsWith('JS '),
      ),
    );
    const rows = [...names].map((name) => {
      const x = perCall(a, counts(a).get(name) ?? 0);
      const y = b ? perCall(b, counts(b).get(name) ?? 0) : 0;
      return { name, x, y, d: x - y };
    });
    rows.sort((r, s) => Math.abs(s.d) - Math.abs(r.d));
    for (const r of rows.slice(0, top))
      console.log(
        b
          ? `${r.d >= 0 ? '+' : ''}${r.d.toFixed(2).padStart(7)}  (${r.x.toFixed(2)} − ${r.y.toFixed(2)})  ${r.name}`
          : `${r.x.toFixed(2).padStart(8)}  ${r.name}`,
      );
  }
}
