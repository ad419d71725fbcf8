import { defineConfig } from 'vitest/config';
import base, { sharedTest } from './vitest.config.mts';

/**
 * The multi-replica suite: app processes from the built dist/, a balancer, PostgreSQL, Redis and
 * an S3-compatible server. Its files mostly wait (partitions, slow receivers, lock expiry), so
 * three run at once.
 */
export default defineConfig({
  ...base,
  test: {
    ...sharedTest,
    include: ['test/replicas/**/*.e2e-spec.ts'],
    exclude: ['**/node_modules/**'],
    // No file here starts an in-process app: no embedded database template to make.
    globalSetup: [],
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
