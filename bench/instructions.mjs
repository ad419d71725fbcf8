// node bench/instructions.mjs [--against <other built checkout>] [--top N] — machine instructions
// per call, counted by valgrind's callgrind: the Kadu app's MCP door (tools/call with its token), the
// same door with tracing on (what tracing adds, by instructions), and the module alone (5 tools,
// tools/call), each in its own process, and with --against the same
// fixtures of another build. Less V8's optimising compiler (which still runs now and then, and
// whose share is printed), a count moves by ~2 % (the Kadu app) or less (the module) from one run
// to the next whatever the machine is doing, where CPU time on this shared VM moves by a third
// between spells (bench/RESULTS.md, issue 32, sixteenth pass): it says whether a change removes
// work, and which JavaScript function does it
// (the fixture runs with --perf-basic-prof, whose map names the JIT's code). It cannot say what a
// cache miss costs: the time-based A/B (compare-builds.mjs) and `npm run bench` say that.
// Needs valgrind (Debian's package; every machine kind here has it). Two to three minutes per fixture.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARGS, cannon, here, modern, otlpSink, start } from './helpers.mjs';
import { kaduFixture } from './kadu-bundle.mjs';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const against = option('--against');
const TOP = Number(option('--top') ?? 12);
// Warm-up in four runs, each on connections of its own (helpers.mjs warmupRuns says why), then the
// counted calls on new connections too. The traced door's longer: after 30 000 calls TurboFan was
// still 19 % of its count, after 50 000 3 % (bench/RESULTS.md, issue 32, seventeenth pass).
const WARMUP = [20_000, 5_000, 3_000, 2_000];
const TRACED_WARMUP = [40_000, 5_000, 3_000, 2_000];
const COUNTED = 4_000;
// V8's optimising compiler still runs now and then (a function reaching its threshold late, code
// dropped and made again when connections close): a few percent of the Kadu app's count, and not
// the same from one run to the next. Counts are compared without its own functions; its share is
// printed, and above this the count is flagged as not of the steady state.
const MAX_COMPILER_SHARE = 0.05;
// Under valgrind a fixture starts in tens of seconds, and a call takes milliseconds.
const READY_WITHIN_MS = 600_000;
const CONTROL_TIMEOUT_MS = 60_000;

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench/instructions.mjs needs valgrind (apt-get install valgrind)');
  process.exit(1);
}

const FIXTURES = {
  'kadu.mcp_2026': { kadu: true, token: true },
  // The same door with tracing on, its spans exported as OTLP to a sink here (as in run.mjs).
  'kadu_traced.mcp_2026': { kadu: true, token: true, traced: true },
  'module.tools_call': { args: ['dist/bench/fixtures/scale.main.js', '5'], token: false },
};
const sink = await otlpSink();

/** One fixture of one build under callgrind: instructions per call, in all and per function. */
async function count(root, name, fixture) {
  const out = mkdtempSync(join(tmpdir(), 'kadu-instructions-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'kadu-instructions-data-'));
  let app;
  try {
    // --no-memory-reducer: under valgrind a call takes ~50 times as long, so V8 reads the low
    // allocation rate per second as an idle app and starts major collections a loaded app never
    // makes (none in 5 s of load outside valgrind; under it, marking and sweeping were over a
    // tenth of the traced app's count).
    const args = fixture.kadu ? [await kaduFixture(root)] : fixture.args;
    app = await start(name, ['--perf-basic-prof', '--no-memory-reducer', ...args], {
      cwd: root,
      under: [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        // V8 writes and rewrites its code at run time: valgrind must notice.
        '--smc-check=all-non-file',
        // Instructions only, whatever VALGRIND_OPTS or a .valgrindrc add: summarise() reads one event.
        '--cache-sim=no',
        '--branch-sim=no',
        '--collect-jumps=no',
        '--dump-instr=no',
        `--callgrind-out-file=${join(out, 'callgrind.out')}`,
        `--log-file=${join(out, 'valgrind.log')}`,
      ],
      env: {
        DATA_DIR: dataDir,
        KADU_RATE_GENERAL: '1000000000/60',
        KADU_RATE_WRITES: '1000000000/60',
        KADU_RATE_FAILED_AUTH: '1000000000/60',
        ...(fixture.traced ? sink.env : {}),
      },
      readyWithinMs: READY_WITHIN_MS,
    });
    const request = modern('tools/call', { name: 'bench_echo', arguments: ARGS }, fixture.token ? app.mcp : undefined);
    const load = async (amount) =>
      (await cannon(`${app.url}/mcp`, request, { connections: 4, amount, timeout: 60 })).requests.total;
    for (const amount of fixture.traced ? TRACED_WARMUP : WARMUP) await load(amount);
    const exported = sink.bytes.traces;
    control(app.child.pid, '--instr=on');
    const calls = await load(COUNTED);
    control(app.child.pid, '--instr=off');
    control(app.child.pid, '--dump');
    // A batch of 512 spans goes out several times over the counted calls: none means tracing was off.
    if (fixture.traced && sink.bytes.traces === exported)
      throw new Error(`${name}: no spans reached the OTLP sink while counted: tracing is not on in this build`);
    const dump = readdirSync(out).find((f) => /^callgrind\.out\.\d+$/.test(f));
    if (!dump) throw new Error(`${name}: callgrind wrote no dump`);
    return summarise(readFileSync(join(out, dump), 'utf8'), perfMap(app.child.pid), calls, root);
  } finally {
    if (app) {
      await app.stop();
      rmSync(`/tmp/perf-${app.child.pid}.map`, { force: true });
    }
    rmSync(out, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** callgrind_control on the fixture; it exits 0 even when it found no such process, so its answer is read. */
function control(pid, command) {
  const r = spawnSync('callgrind_control', [command, String(pid)], { encoding: 'utf8', timeout: CONTROL_TIMEOUT_MS });
  if (r.status !== 0 || !r.stdout.includes(`PID ${pid}`))
    throw new Error(`callgrind_control ${command} ${pid} failed: ${(r.stdout + r.stderr).trim()}`);
}

/** V8's map of the code it made ("start size name", hex), sorted by start. */
function perfMap(pid) {
  return readFileSync(`/tmp/perf-${pid}.map`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
    })
    .sort((a, b) => a.start - b.start);
}

/** The function a callgrind name is: JIT code by its address in the map, the rest as callgrind names it. */
function resolver(map, root) {
  return (name) => {
    // `'2`: callgrind's mark for a recursive call's second level (--separate-recs).
    const plain = name.replace(/'\d+$/, '');
    const address = /^0x([0-9a-f]+)$/.exec(plain);
    if (!address) return plain;
    const at = parseInt(address[1], 16);
    let lo = 0;
    let hi = map.length - 1;
    let found;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (map[mid].start <= at) {
        found = map[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (!found || at >= found.end) return '(JIT code not in the map)';
    // "JS:*name file:line:col": the tier mark dropped, the build's own path too.
    return found.name
      .replace(/^JS:[*~^+]?/, '')
      .replace(`file://${root}/`, '')
      .replace(`${root}/`, '');
  };
}

/**
 * Self instructions per function from callgrind's format (valgrind.org/docs/manual/cl-format.html):
 * `fn=` opens a function, a `calls=` line is followed by its call's inclusive cost (skipped here),
 * any other line of numbers is a cost of the current function. Names are given once, then by `(id)`.
 * The sum must equal the file's `totals:` line, or the format was not read as written.
 */
function summarise(text, map, calls, root) {
  if (!/^events: Ir$/m.test(text) || !/^positions: line$/m.test(text))
    throw new Error('callgrind wrote other events than Ir, or other positions than lines');
  const names = new Map();
  const nameOf = (spec) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    if (!names.has(m[1])) throw new Error(`callgrind output names (${m[1]}) before defining it`);
    return names.get(m[1]);
  };
  const resolve = resolver(map, root);
  const self = new Map();
  let fn = '';
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = resolve(nameOf(line.slice(3)));
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[+-]?\d|^\*/.test(line)) {
      if (callCost) callCost = false;
      else self.set(fn, (self.get(fn) ?? 0) + Number(line.trim().split(' ')[1] ?? 0));
    }
  }
  let total = 0;
  let compiler = 0;
  for (const [name, ir] of self) {
    total += ir;
    if (name.includes('v8::internal::compiler::')) compiler += ir;
  }
  const totals = Number(/^totals: (\d+)$/m.exec(text)?.[1]);
  if (!(total > 0) || total !== totals) throw new Error(`read ${total} instructions where callgrind counted ${totals}`);
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return {
    perCall: total / calls,
    withoutCompiler: (total - compiler) / calls,
    compilerShare: compiler / total,
    top: top.map(([n, ir]) => [n, ir / calls]),
  };
}

const builds = { this: join(here, '..'), ...(against ? { against } : {}) };
const results = {};
for (const [build, root] of Object.entries(builds)) {
  for (const [name, fixture] of Object.entries(FIXTURES)) {
    const key = `${build}.${name}`;
    const r = (results[key] = await count(root, key, fixture));
    console.log(
      `${key.padEnd(32)} ${r.withoutCompiler.toFixed(0).padStart(8)} instructions per call without the compiler's own functions (${r.perCall.toFixed(0)} with them, ${(100 * r.compilerShare).toFixed(1)} %)`,
    );
    for (const [fn, ir] of r.top) console.log(`  ${ir.toFixed(0).padStart(8)}  ${fn.slice(0, 140)}`);
    if (r.compilerShare > MAX_COMPILER_SHARE)
      console.log(`  (V8 was still compiling while counted: this count is not of the steady state)`);
  }
}
const per = (key) => results[key].withoutCompiler;
for (const build of Object.keys(builds))
  console.log(
    `INSTRUCTIONS ${build} kadu_mcp_vs_module_call ${(per(`${build}.module.tools_call`) / per(`${build}.kadu.mcp_2026`)).toFixed(3)}`,
  );
for (const build of Object.keys(builds))
  console.log(
    `INSTRUCTIONS ${build} tracing_added_per_call ${(per(`${build}.kadu_traced.mcp_2026`) - per(`${build}.kadu.mcp_2026`)).toFixed(0)}`,
  );
await sink.close();
if (against)
  for (const name of Object.keys(FIXTURES))
    console.log(`INSTRUCTIONS this_vs_against ${name} ${(per(`this.${name}`) / per(`against.${name}`)).toFixed(3)}`);
