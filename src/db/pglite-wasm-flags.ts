/**
 * How much a WebAssembly function runs before V8 compiles it again with its optimizing compiler
 * (`--wasm-tiering-budget`): 100 times V8 11's default of 1 800 000 (Node 20; V8 12 and 13 default
 * to 13 000 000). PostgreSQL's start and the first catalog queries run thousands of its functions
 * just often enough to be queued at the default, and that optimizing compilation — background
 * threads, ~1 s of CPU — competed with the app's own start: measured in bench/RESULTS.md
 * ("Start-up", issue 32). What is hot under load still reaches the budget within the first few
 * hundred queries and is optimized then.
 */
export const PGLITE_WASM_TIERING_BUDGET = 180_000_000;

/**
 * From V8 13 (Node 24) this process's WebAssembly — PGlite's, and undici's HTTP parser if `fetch`
 * is used — stays on V8's baseline compiler. There one PostgreSQL function (105 kB of WebAssembly)
 * reached the optimizing compiler about two seconds after the start (and under the first load with
 * a budget of 2 000 000 000 too), and that one compilation peaked at ~600 MB of memory during
 * ~1.5 s: the embedded process's RSS went from ~230 MB to 694–762 MB. Without it the process idles
 * at ~180–210 MB, starts are no slower, and a tool call that reads the database and task creation
 * through the REST API (30 s, a growing table) served about as many calls per second (one run
 * each). The same function took 25 MB and 0.16 s on V8 12 (Node 22), and no compilation more than
 * ~24 MB on V8 11 (Node 20), where a growing table's queries were 10–20 % slower without the
 * optimizing compiler: both keep the budget. Both flags: each alone still peaked at 739–756 MB.
 * bench/RESULTS.md, issue 32, twenty-sixth pass.
 */
const FIRST_V8_WITHOUT_WASM_TIER_UP = 13;

/**
 * The V8 flags the embedded database runs under, for this process's V8 (`process.versions.v8`).
 * Set before PGlite compiles its module (PgliteDatabase.open, and the child that creates a data
 * folder); `scripts/bundle-loader.cjs` chooses the same ones before it compiles the bundle, since
 * V8 accepts cached code only under the flags it was made with.
 */
export function pgliteWasmFlags(v8Version: string = process.versions.v8): string[] {
  return Number.parseInt(v8Version, 10) >= FIRST_V8_WITHOUT_WASM_TIER_UP
    ? ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']
    : [`--wasm-tiering-budget=${PGLITE_WASM_TIERING_BUDGET}`];
}
