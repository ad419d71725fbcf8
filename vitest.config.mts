import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    globals: true,
    include: ['libs/**/*.spec.ts', 'libs/**/*.e2e-spec.ts', 'src/**/*.spec.ts', 'test/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    // The multi-replica suite runs separately (vitest.replicas.config.mts, in the distributed pass).
    exclude: [...configDefaults.exclude, 'test/replicas/**'],
    testTimeout: 20000,
    hookTimeout: 30000,
  },
});
