import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The package's own suite, `npm test` here: its unit tests (src/**\/*.spec.ts) and its e2e tests
 * against its own fixture apps (test/), with nothing of the app around it — no Kadu, no database.
 * The few tests that need Redis skip outside CI, saying so (test/support/requirements.ts). The
 * repository's root `npm test` runs these same files once, from its own config (vitest.config.mts).
 * `@kobana/nest-mcp` and its subpaths resolve to the sources (test/tsconfig.json `paths`).
 */
export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    include: ['src/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    exclude: [...configDefaults.exclude, 'dist/**'],
    testTimeout: 20000,
    hookTimeout: 30000,
  },
});
