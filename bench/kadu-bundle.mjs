// The bench's Kadu app (bench/fixtures/kadu-echo.main.ts) bundled by the bundler of `npm start`'s
// production bundle (scripts/bundle-app.mjs), and run as a plain file, without the production
// loader's code cache (which changes the start, not the steady state). Until the twenty-seventh
// pass of issue 32 the bench measured the compiled files while operators ran the bundle, whose
// keepNames wrappers then cost an MCP call 1.38× the CPU (bench/RESULTS.md). No bench dependency
// here: test/ops/bench-bundle.e2e-spec.ts runs it.
// As a script, `node bench/kadu-bundle.mjs <root> <bundler>` makes the bundle (a child process of
// the bench, so that esbuild and the parse of the bundle stay out of the load generator's memory).
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The compiled fixture (`nest build`), and its bundle beside the compiled bench files. */
export const KADU_FIXTURE_COMPILED = 'dist/bench/fixtures/kadu-echo.main.js';
export const KADU_FIXTURE_BUNDLE = 'dist/bench/kadu-echo.cjs';

const here = fileURLToPath(import.meta.url);
const made = new Map();

/**
 * The path under `root` of that checkout's Kadu app for the bench, bundled once per process by
 * the checkout's own scripts/bundle-app.mjs — or, for a checkout from before that file, by this
 * checkout's (said so: a comparison then measures both builds through the same bundler).
 */
export function kaduFixture(root) {
  if (!made.has(root)) made.set(root, bundle(root));
  return made.get(root);
}

function bundle(root) {
  let bundler = join(root, 'scripts/bundle-app.mjs');
  if (!existsSync(bundler)) {
    bundler = join(here, '..', '..', 'scripts/bundle-app.mjs');
    console.log(`${root} has no scripts/bundle-app.mjs: its Kadu app is bundled by ${bundler}`);
  }
  const run = spawnSync(process.execPath, [here, root, bundler], { encoding: 'utf8' });
  // The child's last line says what it wrote: a child that bundled nothing must not pass for one that did.
  const wrote = /^BUNDLED (.*)$/m.exec(run.stdout ?? '');
  if (run.status !== 0 || !wrote) throw new Error(`bundling ${root}'s Kadu app failed:\n${run.stdout}${run.stderr}`);
  console.log(`${root}: the bench's Kadu app bundled, ${wrote[1]}`);
  return Promise.resolve(KADU_FIXTURE_BUNDLE);
}

// Run as a script (its path may come through a symbolic link; `here` never does).
if (process.argv[1] && realpathSync(process.argv[1]) === here) {
  const [root, bundler] = process.argv.slice(2);
  const { bundleApp } = await import(pathToFileURL(bundler).href);
  const { names } = await bundleApp({
    entry: join(root, KADU_FIXTURE_COMPILED),
    outfile: join(root, KADU_FIXTURE_BUNDLE),
  });
  console.log(`BUNDLED ${JSON.stringify({ keepNamesWrappers: names })}`);
}
