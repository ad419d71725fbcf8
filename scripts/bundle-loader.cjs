'use strict';
// dist/kadu/kadu.cjs, the production bundle's loader (scripts/bundle.mjs writes it here, with the bundle's
// hash in the cache file's name): runs dist/kadu/main.cjs as Node would require it, with V8's
// compiled code kept between starts. Node 20 has no `module.enableCompileCache` (Node 22.1), so the
// bundle is compiled through `vm.Script` with `cachedData`: after the first start has listened, the
// code V8 compiled by then (the lazily compiled functions too) is saved beside the bundle, and
// later starts skip that compilation (docs/operators/operating.md §"The production bundle").
const { isAscii } = require('node:buffer');
const { readdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { setFlagsFromString } = require('node:v8');
const vm = require('node:vm');

// V8 accepts cached code only under the flags it was made with: the app turns allocation-site
// pretenuring off before it listens (src/lifecycle/gc-tuning.ts), when the code is saved, so the
// same flag is set here before the bundle is compiled (it has the same effect this early).
setFlagsFromString('--no-allocation-site-pretenuring');
// Likewise the embedded database's WebAssembly flags, chosen by V8's version as pgliteWasmFlags
// does (src/db/pglite-wasm-flags.ts; PgliteDatabase.open sets them again before PGlite starts): set
// only there, every embedded start saw the flags changed since compilation and rejected the cached
// code. From V8 13 (Node 24) the process's WebAssembly is not optimized at all; before, it is
// optimized only past 180 000 000 of the tiering budget.
const PGLITE_WASM_FLAGS =
  Number.parseInt(process.versions.v8, 10) >= 13
    ? ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']
    : ['--wasm-tiering-budget=180000000'];
for (const flag of PGLITE_WASM_FLAGS) setFlagsFromString(flag);

const file = join(__dirname, 'main.cjs');
// Named by the bundle's hash: a rebuilt bundle never meets the code compiled for another. And by
// topology: by the time a start listens V8 has compiled PGlite's side or PostgreSQL's, with or
// without Redis's, so where one build starts several (the tests, the bench, a developer's machine)
// each keeps its own; a replica started from an embedded start's code took ~3 % longer to be ready
// (bench/RESULTS.md, issue 32, thirty-third pass). The variables are those the app's configuration
// reads (src/config/redis-config.ts, the database's DATABASE_URL). Other settings (telemetry) change
// what is compiled too; the first start of a topology decides for it.
const prefix = 'main-__BUNDLE_HASH__-';
const redis = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].some((name) => process.env[name]);
const topology = `${process.env.DATABASE_URL ? 'postgres' : 'pglite'}${redis ? '-redis' : ''}`;
const cacheFile = join(__dirname, `${prefix}${topology}.v8cache`);

/** The first of `names` that can be read, or undefined. */
function readFirst(names) {
  for (const name of names)
    try {
      return readFileSync(join(__dirname, name));
    } catch {
      // not there (or a folder): the next
    }
  return undefined;
}

const ownCache = readFirst([`${prefix}${topology}.v8cache`]);
// Without its own yet, another topology's code of the same bundle (V8 accepts it: same source, same
// flags), as an image warmed with one embedded start ships: most of the bundle is common.
const otherCaches = () => {
  try {
    return readdirSync(__dirname).filter((name) => name.startsWith(prefix) && name.endsWith('.v8cache'));
  } catch {
    return [];
  }
};
const cachedData = ownCache ?? readFirst(otherCaches());
// The build writes the bundle in ASCII (scripts/bundle.mjs): read as Latin-1, it is one byte per
// character in memory and needs no UTF-8 decoding; another file is read as UTF-8.
const source = readFileSync(file);
const script = new vm.Script(Module.wrap(source.toString(isAscii(source) ? 'latin1' : 'utf8')), {
  filename: file,
  cachedData,
});
const bundle = new Module(file, module);
bundle.filename = file;
bundle.paths = Module._nodeModulePaths(__dirname);
bundle.loaded = true;
const run = script.runInThisContext();
run.call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, __dirname);

// Saved under its own name when it had none, even when another topology's code was accepted.
if (!ownCache || script.cachedDataRejected)
  bundle.exports.started.then(() => {
    try {
      const staging = `${cacheFile}.${process.pid}`;
      writeFileSync(staging, script.createCachedData());
      renameSync(staging, cacheFile);
    } catch {
      // A read-only dist/: every start compiles, as the unbundled build does.
    }
  });
