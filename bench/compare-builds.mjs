// node bench/compare-builds.mjs <other checkout> — A/B of two builds of Kadu (this checkout's dist/
// and another checkout's, both built with `npm run build`): the Kadu app's REST and MCP doors, then
// the module alone (5 tools, tools/call; not with TRACED=1), side by side in one run, pinned like
// bench/run.mjs (servers on core 0, load on core 1), rounds interleaved, medians of per-round
// ratios. It says what a change costs when the machine is too loaded for runs at different times to
// compare.
// ROUNDS, DUR (s), WARM (s) and ONLY_MODULE=1 adjust it; the module group also runs the floor (bare.main.js stable); LISTS=1 adds tools/list of 1 000 tools. Telemetry is off in both, as by default.
// TRACED=1 starts both builds' Kadu fixture with tracing and metrics on, exporting to a local OTLP
// receiver, as run.mjs's traced app (the TRACING lines); its per-call CPU is then the traced cost.
// Each build's fixture also runs untraced beside it, so that what tracing adds is each build's own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  ARGS,
  cpuMs,
  here,
  median,
  modern,
  otlpSink,
  pinLoadGenerator,
  restEcho,
  start as startFixture,
  warmupRuns,
} from './helpers.mjs';
import { kaduFixture } from './kadu-bundle.mjs';

const other = process.argv[2];
if (!other) throw new Error('usage: node bench/compare-builds.mjs <path of another built checkout>');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const DUR = Number(process.env.DUR ?? 3);
const WARM = Number(process.env.WARM ?? 10);
const sink = process.env.TRACED ? await otlpSink() : undefined;
pinLoadGenerator();

const mcpCall = (token) => modern('tools/call', { name: 'bench_echo', arguments: ARGS }, token);
const restCall = (app) => restEcho(app.api);

/** A fixture of one build (`root`), pinned to core 0 once ready. */
const start = (root, args, env = {}) => startFixture(`${root} ${args.join(' ')}`, args, { env, cwd: root, core: 0 });

const cannon = (t, duration) =>
  autocannon({
    url: t.url,
    method: 'POST',
    connections: 16,
    duration,
    headers: t.request.headers,
    body: t.request.body,
  });

/** Warm-up, then rounds interleaved across targets: { name: [{ rps, cpu }] }. */
async function group(targets) {
  for (const t of targets) for (const duration of warmupRuns(WARM)) await cannon(t, duration);
  const rounds = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let i = 0; i < ROUNDS; i++) {
    // Every other round in the reverse order, so each build takes each place in the round as often:
    // the same two builds read 0.88–0.90 with this checkout measured second and 1.01 with it first
    // (bench/RESULTS.md, issue 32, nineteenth pass).
    for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
      const before = cpuMs(t.pid);
      const r = await cannon(t, DUR);
      if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rounds[t.name].push({ rps: r.requests.average, cpu: ((cpuMs(t.pid) - before) * 1000) / r.requests.total });
    }
  }
  return rounds;
}
const ratios = (res, a, b, key) => res[a].map((r, i) => r[key] / res[b][i][key]);
const ratio = (res, a, b, key = 'rps') => median(ratios(res, a, b, key));
// Every round's ratio, sorted, and in how many rounds this checkout was ahead: the spread says how far
// the median can be trusted on a loaded machine.
const spread = (res, a, b, key, better) => {
  const rs = ratios(res, a, b, key).sort((x, y) => x - y);
  const ahead = rs.filter((r) => (better === 'lower' ? r < 1 : r > 1)).length;
  return `rounds: ${rs.map((r) => r.toFixed(2)).join(' ')} (ahead in ${ahead} of ${rs.length})`;
};
const report = (res) => {
  for (const [name, rs] of Object.entries(res)) {
    console.log(
      `${name.padEnd(20)} ${median(rs.map((r) => r.rps)).toFixed(0)} req/s  ${median(rs.map((r) => r.cpu)).toFixed(0)} µs/req`,
    );
  }
};

const roots = { base: other, mine: join(here, '..') };
const apps = [];
try {
  if (!process.env.ONLY_MODULE) {
    const budgets = {
      KADU_RATE_GENERAL: '1000000000/60',
      KADU_RATE_WRITES: '1000000000/60',
      KADU_RATE_FAILED_AUTH: '1000000000/60',
    };
    const kadu = {};
    // Traced, each build's fixture untraced too (`_off`): what tracing adds to each build, measured
    // against that build (the builds' untraced doors differ: main before issue 32 took 2.5 times this
    // checkout's CPU per untraced MCP call; bench/RESULTS.md, issue 32, twenty-third pass).
    const fixtures = sink
      ? [
          ['base', roots.base],
          ['base_off', roots.base],
          ['mine', roots.mine],
          ['mine_off', roots.mine],
        ]
      : Object.entries(roots);
    for (const [name, root] of fixtures) {
      kadu[name] = await start(root, [await kaduFixture(root)], {
        DATA_DIR: mkdtempSync(join(tmpdir(), `ab-${name}-`)),
        ...budgets,
        ...(name.endsWith('_off') ? {} : sink?.env),
      });
      apps.push(kadu[name]);
    }
    // Door by door: each build's traced and untraced door one after the other in every round (the
    // two builds' doors too when untraced; two places apart when traced).
    const res = await group([
      ...Object.entries(kadu).map(([name, app]) => ({
        name: `${name}.rest`,
        url: `${app.url}/api/v1/bench/echo`,
        request: restCall(app),
        pid: app.child.pid,
      })),
      ...Object.entries(kadu).map(([name, app]) => ({
        name: `${name}.mcp`,
        url: `${app.url}/mcp`,
        request: mcpCall(app.mcp),
        pid: app.child.pid,
      })),
    ]);
    for (const app of apps.splice(0)) app.child.kill('SIGTERM');
    report(res);
    console.log(
      `MCP ÷ REST: base ${ratio(res, 'base.mcp', 'base.rest').toFixed(3)}, this checkout ${ratio(res, 'mine.mcp', 'mine.rest').toFixed(3)}`,
    );
    console.log(
      `this ÷ base, Kadu throughput: MCP ${ratio(res, 'mine.mcp', 'base.mcp').toFixed(3)}, REST ${ratio(res, 'mine.rest', 'base.rest').toFixed(3)}`,
    );
    console.log(
      `this ÷ base, Kadu CPU per call: MCP ${ratio(res, 'mine.mcp', 'base.mcp', 'cpu').toFixed(3)}, REST ${ratio(res, 'mine.rest', 'base.rest', 'cpu').toFixed(3)}${sink ? ' (traced)' : ''}`,
    );
    console.log(`  MCP CPU per call, ${spread(res, 'mine.mcp', 'base.mcp', 'cpu', 'lower')}`);
    console.log(`  REST CPU per call, ${spread(res, 'mine.rest', 'base.rest', 'cpu', 'lower')}`);
    if (sink) {
      // Per round, as run.mjs takes its TRACING lines: traced less untraced, measured seconds apart.
      const added = (build, door) => res[`${build}.${door}`].map((r, i) => r.cpu - res[`${build}_off.${door}`][i].cpu);
      const rounds = (xs) => xs.map((x) => x.toFixed(0)).join(' ');
      for (const door of ['mcp', 'rest']) {
        const base = added('base', door);
        const mine = added('mine', door);
        // A round where the base's added cost read ≤ 0 (a spell over its untraced door) has no ratio.
        const perRound = mine.flatMap((m, i) => (base[i] > 0 ? [m / base[i]] : []));
        console.log(
          `traced ${door}: CPU per call added (traced − untraced, each build, median of rounds): base ${median(base).toFixed(1)} µs, this checkout ${median(mine).toFixed(1)} µs; this ÷ base ${(median(mine) / median(base)).toFixed(2)}, by round ${perRound.length ? median(perRound).toFixed(2) : '–'} (${perRound.length} of ${base.length} rounds)`,
        );
        console.log(`  rounds (µs), base: ${rounds(base)}; this checkout: ${rounds(mine)}`);
      }
      console.log(
        `OTLP received: ${(sink.bytes.traces / 1e6).toFixed(1)} MB of spans, ${(sink.bytes.metrics / 1e3).toFixed(1)} kB of metrics`,
      );
    }
  }
  // Traced, only the Kadu app: the module alone has no SDK to trace it.
  if (!sink) await moduleAlone();
} finally {
  for (const app of apps) app.child.kill('SIGTERM');
  await sink?.close();
}

/** The module alone (5 tools, tools/call), and with LISTS the 1 000-tool tools/list. */
async function moduleAlone() {
  const scale = {};
  for (const [name, root] of Object.entries(roots)) {
    scale[name] = await start(root, ['dist/bench/fixtures/scale.main.js', '5']);
    apps.push(scale[name]);
  }
  // The floor (bare Nest route on the StableExpressAdapter, bench/run.mjs's
  // floor.nest_express_bare_stable_adapter) in the same rounds: module_call_cpu_vs_floor per build.
  const floor = await start(roots.mine, ['dist/bench/fixtures/bare.main.js', 'stable']);
  apps.push(floor);
  const res = await group([
    ...Object.entries(scale).map(([name, app]) => ({
      name: `${name}.module_call`,
      url: `${app.url}/mcp`,
      request: mcpCall(),
      pid: app.child.pid,
    })),
    { name: 'floor', url: `${floor.url}/mcp`, request: mcpCall(), pid: floor.child.pid },
  ]);
  report(res);
  for (const name of Object.keys(scale)) {
    console.log(
      `module_call_cpu_vs_floor, ${name}: ${ratio(res, `${name}.module_call`, 'floor', 'cpu').toFixed(2)}  (${spread(res, `${name}.module_call`, 'floor', 'cpu', 'lower')})`,
    );
  }
  console.log(
    `this ÷ base, module tools/call: throughput ${ratio(res, 'mine.module_call', 'base.module_call').toFixed(3)}, CPU per call ${ratio(res, 'mine.module_call', 'base.module_call', 'cpu').toFixed(3)}`,
  );
  console.log(`  CPU per call, ${spread(res, 'mine.module_call', 'base.module_call', 'cpu', 'lower')}`);
  if (process.env.LISTS) {
    // tools/list of the 1 000-tool app (a 100-entry page) in both builds.
    const list = modern('tools/list', {});
    const big = {};
    for (const [name, root] of Object.entries(roots)) {
      big[name] = await start(root, ['dist/bench/fixtures/scale.main.js', '1000']);
      apps.push(big[name]);
    }
    const lists = await group(
      Object.entries(big).map(([name, app]) => ({
        name: `${name}.list_1000`,
        url: `${app.url}/mcp`,
        request: list,
        pid: app.child.pid,
      })),
    );
    report(lists);
    console.log(
      `this ÷ base, tools/list of 1 000 tools: throughput ${ratio(lists, 'mine.list_1000', 'base.list_1000').toFixed(3)}, CPU per call ${ratio(lists, 'mine.list_1000', 'base.list_1000', 'cpu').toFixed(3)}`,
    );
    console.log(`  CPU per call, ${spread(lists, 'mine.list_1000', 'base.list_1000', 'cpu', 'lower')}`);
  }
}
