// node bench/replies-at-turn-end.mjs — what `jsonRepliesAtTurnEnd` gives an adopter's own routes:
// a plain Nest JSON route (bench/fixtures/json-route.main.ts) on StableExpressAdapter without and
// with it, side by side, pinned like bench/run.mjs (servers on core 0, load on core 1), rounds
// interleaved (the order alternating), CPU per call and throughput by round, and the medians of
// per-round ratios. ROUNDS, DUR (s) and WARM (s) adjust it. Needs `npm run build` first.
import { cannon, cpuMs, median, pinLoadGenerator, start, warmupRuns } from './helpers.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const DUR = Number(process.env.DUR ?? 3);
const WARM = Number(process.env.WARM ?? 8);
const FIXTURE = 'dist/bench/fixtures/json-route.main.js';

pinLoadGenerator();
const apps = {
  plain: await start('json route', [FIXTURE], { core: 0 }),
  turn: await start('json route, jsonRepliesAtTurnEnd', [FIXTURE, 'turn'], { core: 0 }),
};
const request = {
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } }),
};
try {
  console.log(`replies at the end of the turn: ${ROUNDS} interleaved rounds × ${DUR} s after a ${WARM} s warm-up`);
  for (const app of Object.values(apps))
    for (const seconds of warmupRuns(WARM)) await cannon(`${app.url}/mcp`, request, { duration: seconds });
  const rounds = { plain: [], turn: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? ['turn', 'plain'] : ['plain', 'turn']) {
      const app = apps[name];
      const before = cpuMs(app.child.pid);
      const result = await cannon(`${app.url}/mcp`, request, { duration: DUR });
      rounds[name].push({
        us: ((cpuMs(app.child.pid) - before) * 1000) / result.requests.total,
        rps: result.requests.average,
      });
    }
    const [plain, turn] = [rounds.plain[r], rounds.turn[r]];
    console.log(
      `round ${r + 1}: without ${plain.us.toFixed(1)} µs ${plain.rps.toFixed(0)}/s, with ${turn.us.toFixed(1)} µs ${turn.rps.toFixed(0)}/s`,
    );
  }
  const cpu = rounds.turn.map((t, i) => t.us / rounds.plain[i].us);
  const rps = rounds.turn.map((t, i) => t.rps / rounds.plain[i].rps);
  console.log(
    `CPU per call: without ${median(rounds.plain.map((x) => x.us)).toFixed(1)} µs, with ${median(rounds.turn.map((x) => x.us)).toFixed(1)} µs (medians of rounds)`,
  );
  console.log(
    `RATIO json_route_cpu_turn_end_vs_plain ${median(cpu).toFixed(3)} (lower in ${cpu.filter((x) => x < 1).length} of ${ROUNDS} rounds)`,
  );
  console.log(`RATIO json_route_throughput_turn_end_vs_plain ${median(rps).toFixed(3)}`);
} finally {
  await Promise.all(Object.values(apps).map((app) => app.stop()));
}
