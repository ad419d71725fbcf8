import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that need module state of their own: a fresh module graph each, as Vitest gives by
 * default. Everything else shares one graph per worker (`isolate: false`): the main pass took
 * 139 s against 210 with every file isolated (bench/RESULTS.md, the thirtieth pass's section on
 * the test run; docs/contributors/testing.md says when a new file belongs here).
 */
const ISOLATED = [
  // vi.mock of a Node module: a shared graph keeps the real one, or keeps the mock for later files.
  'src/db/pglite-data-dir.spec.ts',
  'src/db/pglite-database.spec.ts',
  // Asserts class-validator's storage as the library leaves it: Kadu's validation memo adds to it,
  // and so may a library file to come (the library's graph never loads Kadu's: kept apart anyway).
  'libs/mcp/src/validation/remembered-metadata.spec.ts',
  // Installs OpenTelemetry's global providers, which the app's module-level tracers and meters
  // bind to on first use: it must be the first and only app of its graph.
  'test/ops/telemetry.e2e-spec.ts',
  // The memo of encoded attributes, from empty: what a process meets, and what it kept.
  'src/telemetry/otlp-attribute-memo.spec.ts',
  // Replaces sdk-metrics' attribute hash in place, for the rest of the graph.
  'src/telemetry/attribute-hash-memo.spec.ts',
  // Switches V8's promise hooks, the timers, `process.nextTick` and `AsyncResource` for the whole
  // process while each test runs, and asserts that no AsyncLocalStorage ever ran in it.
  'src/telemetry/promise-hook-context-manager.spec.ts',
  // `--allow-natives-syntax` for the rest of the process, and V8's object shapes as it finds them.
  'libs/mcp/test/module/stable-express-adapter.e2e-spec.ts',
];

/** What the main pass, the replica suite and the adopter pass share. */
export const sharedTest = {
  globals: true,
  // The multi-replica suite runs separately (vitest.replicas.config.mts, in the distributed pass),
  // and so do the adopter apps (vitest.adopters.config.mts): their installs and builds would
  // compete for the CPU with every other file.
  exclude: [...configDefaults.exclude, 'test/replicas/**', 'test/adopters/**'],
  // One embedded database created and migrated for the whole run, copied by each fresh app.
  globalSetup: ['test/support/db-template.global-setup.ts'],
  // Vitest's default is one worker per core less one: a single worker on the 2-core CI machine.
  // Most files wait on sockets, child processes and Chromium rather than compute, so two workers
  // there took the first pass from 356 s to 204 s (126 files, all green; docs/contributors/testing.md).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  testTimeout: 20000,
  hookTimeout: 30000,
};

const LIBRARY = ['libs/**/*.spec.ts', 'libs/**/*.e2e-spec.ts'];
const APP = [
  'src/**/*.spec.ts',
  'test/**/*.spec.ts',
  'test/**/*.e2e-spec.ts',
  // The repository's own ESLint rules (eslint-rules/, issue 34).
  'eslint-rules/**/*.spec.mjs',
];

/**
 * The root's global setup runs once for the whole run and every project reads what it provides
 * (Vitest's `getProvidedContext`): a project that named it too would make the template again.
 */
const project = (name: string, include: string[]) => ({
  resolve: { tsconfigPaths: true },
  test: { ...sharedTest, globalSetup: [], name, include },
});
/** A project whose files share one module graph per worker, the isolated files left out. */
const sharingProject = (name: string, include: string[]) => {
  const { resolve, test } = project(name, include);
  return { resolve, test: { ...test, exclude: [...sharedTest.exclude, ...ISOLATED], isolate: false } };
};

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    ...sharedTest,
    projects: [
      project('isolated', ISOLATED),
      // The library's files in graphs of their own, without Kadu's: they prove what an adopter gets.
      sharingProject('library', LIBRARY),
      sharingProject('app', APP),
    ],
  },
});
