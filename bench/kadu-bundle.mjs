// The bench's Kadu app (bench/fixtures/kadu-echo.main.ts) bundled as `npm start` runs Kadu
// (scripts/bundle-app.mjs): until the twenty-seventh pass of issue 32 the bench measured the
// compiled files while operators ran the bundle, whose keepNames wrappers then cost an MCP call
// 1.38× the CPU (bench/RESULTS.md). No bench dependency here: test/ops/bench-echo.e2e-spec.ts runs it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The compiled fixture (`nest build`), and its bundle beside the compiled bench files. */
export const KADU_FIXTURE_COMPILED = 'dist/bench/fixtures/kadu-echo.main.js';
export const KADU_FIXTURE_BUNDLE = 'dist/bench/kadu-echo.cjs';

const made = new Map();

/**
 * The path under `root` of that checkout's Kadu app for the bench: bundled by its own
 * scripts/bundle-app.mjs, once per process. A checkout from before that file gets its compiled
 * files, and says so.
 */
export function kaduFixture(root) {
  if (!made.has(root)) made.set(root, bundle(root));
  return made.get(root);
}

async function bundle(root) {
  const bundler = join(root, 'scripts/bundle-app.mjs');
  if (!existsSync(bundler)) {
    console.log(`${root}: no scripts/bundle-app.mjs, so its Kadu app runs from the compiled files`);
    return KADU_FIXTURE_COMPILED;
  }
  const { bundleApp } = await import(pathToFileURL(bundler).href);
  await bundleApp({ entry: join(root, KADU_FIXTURE_COMPILED), outfile: join(root, KADU_FIXTURE_BUNDLE) });
  return KADU_FIXTURE_BUNDLE;
}
