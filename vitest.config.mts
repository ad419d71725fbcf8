import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    include: [
      'libs/**/*.spec.ts',
      'libs/**/*.e2e-spec.ts',
      'src/**/*.spec.ts',
      'test/**/*.spec.ts',
      'test/**/*.e2e-spec.ts',
      // The repository's own ESLint rules (eslint-rules/, issue 34).
      'eslint-rules/**/*.spec.mjs',
    ],
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
  },
});
