import { defineConfig } from 'vitest/config';
import base, { sharedTest } from './vitest.config.mts';

/**
 * The adopter apps (test/adopters): the packed tarball installed from the npm registry into
 * CommonJS Nest 10 and 11 apps and an ES-module Nest 12 app (each install also building the notes adopter
 * app as CommonJS and ESM), built and driven by the official clients.
 * A pass of its own after the main one, so its installs and compilations do not slow the others.
 */
export default defineConfig({
  ...base,
  test: {
    ...sharedTest,
    include: ['test/adopters/*.e2e-spec.ts'],
    exclude: ['**/node_modules/**'],
    // No file here starts an in-process app: no embedded database template to make.
    globalSetup: [],
    hookTimeout: 300_000,
  },
});
