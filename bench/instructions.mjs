// node bench/instructions.mjs [--against <other built checkout>] [--top N] — machine instructions
// per call, counted by valgrind's callgrind: the Kadu app's MCP door (tools/call with its token) and
// the module alone (5 tools, tools/call), each in its own process, and with --against the same
// fixtures of another build. A count is the same from one run to the next on any machine state,
// where CPU time on this shared VM moves by a third between spells (bench/RESULTS.md, issue 32,
// sixteenth pass): it says whether a change removes work, and which JavaScript function does it
// (the fixture runs with --perf-basic-prof, whose map names the JIT's code). It cannot say what a
// cache miss costs: the time-based A/B (compare-builds.mjs) and `npm run bench` say that.
// Needs valgrind (Debian's package; every machine kind here has it). About two minutes per fixture.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ARGS, here, modern } from './helpers.mjs';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const against = option('--against');
const TOP = Number(option('--top') ?? 12);
// Warm-up in four runs, each on connections of its own (helpers.mjs warmupRuns says why), then the
// counted calls on new connections too.
const WARMUP = [20_000, 5_000, 3_000, 2_000];
const COUNTED = 4_000;
// V8's optimising compiler still runs now and then (a function reaching its threshold late, code
// dropped and made again when connections close): a few percent of the Kadu app's count, and not
// the same from one run to the next. Counts are compared without it; its share is printed, and
// above this the count is flagged as not of the steady state.
const MAX_COMPILER_SHARE = 0.05;

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench/instructions.mjs needs valgrind (apt-get install valgrind)');
  process.exit(1);
}

const FIXTURES = {
  'kadu.mcp_2026': { args: ['dist/bench/fixtures/kadu-echo.main.js'], token: true },
  'module.tools_call': { args: ['dist/bench/fixtures/scale.main.js', '5'], token: false },
};

/** One fixture of one build under callgrind: instructions per call, in all and per function. */
async function count(root, fixture) {
  const out = mkdtempSync(join(tmpdir(), 'kadu-instructions-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites its code at run time: valgrind must notice.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(out, 'callgrind.out')}`,
      process.execPath,
      '--perf-basic-prof',
      ...fixture.args,
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'kadu-instructions-data-')),
        KADU_RATE_GENERAL: '1000000000/60',
        KADU_RATE_WRITES: '1000000000/60',
        KADU_RATE_FAILED_AUTH: '1000000000/60',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  try {
    const ready = await new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        const m = /READY (\{.*\})/.exec(text);
        if (m) resolve(JSON.parse(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`${fixture.args.join(' ')} exited (${code}) before it was ready`)));
    });
    const request = modern(
      'tools/call',
      { name: 'bench_echo', arguments: ARGS },
      fixture.token ? ready.mcp : undefined,
    );
    const load = async (amount) => {
      const r = await autocannon({
        url: `http://127.0.0.1:${ready.port}/mcp`,
        method: 'POST',
        connections: 4,
        amount,
        timeout: 60,
        headers: request.headers,
        body: request.body,
      });
      if (r.non2xx || r.errors) throw new Error(`${r.non2xx} non-2xx and ${r.errors} errors: not measuring the call`);
      return r.requests.total;
    };
    for (const amount of WARMUP) await load(amount);
    const control = (...args) => spawnSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
    control('--instr=on');
    const calls = await load(COUNTED);
    control('--instr=off');
    control('--dump');
    const dump = readdirSync(out).find((f) => /^callgrind\.out\.\d+$/.test(f));
    if (!dump) throw new Error('callgrind wrote no dump');
    return summarise(readFileSync(join(out, dump), 'utf8'), perfMap(child.pid), calls);
  } finally {
    child.kill('SIGKILL');
    rmSync(out, { recursive: true, force: true });
    rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
  }
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
function resolver(map) {
  return (name) => {
    const address = /^0x([0-9a-f]+)/.exec(name);
    if (!address) return name;
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
    // "JS:*name file:line:col": the tier mark dropped, the checkout's path too.
    return found.name.replace(/^JS:[*~^+]?/, '').replace(`file://${here.slice(0, -'/bench'.length)}/`, '');
  };
}

/**
 * Self instructions per function from callgrind's format (valgrind.org/docs/manual/cl-format.html):
 * `fn=` opens a function, a `calls=` line is followed by its call's inclusive cost (skipped here),
 * any other line of numbers is a cost of the current function. Names are given once, then by `(id)`.
 */
function summarise(text, map, calls) {
  const names = new Map();
  const nameOf = (spec) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]);
  };
  const resolve = resolver(map);
  const self = new Map();
  let fn = '';
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = resolve(nameOf(line.slice(3)));
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[+-]?\d|^\*/.test(line)) {
      if (callCost) callCost = false;
      else self.set(fn, (self.get(fn) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
  }
  let total = 0;
  let compiler = 0;
  for (const [name, ir] of self) {
    total += ir;
    if (name.includes('v8::internal::compiler::')) compiler += ir;
  }
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
    results[key] = await count(root, fixture);
    const r = results[key];
    console.log(
      `${key.padEnd(32)} ${r.withoutCompiler.toFixed(0).padStart(8)} instructions per call without V8's compiler (${r.perCall.toFixed(0)} with it, ${(100 * r.compilerShare).toFixed(1)} %)`,
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
if (against)
  for (const name of Object.keys(FIXTURES))
    console.log(`INSTRUCTIONS this_vs_against ${name} ${(per(`this.${name}`) / per(`against.${name}`)).toFixed(3)}`);
