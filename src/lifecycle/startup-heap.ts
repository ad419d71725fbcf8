import { setFlagsFromString } from 'node:v8';

/**
 * Start-up allocates once what no request needs again (1 300 modules compiled, Nest's graph
 * built) and V8 grows the young generation to match: a replica then sat idle with 88 MB of heap
 * for 57 MB in use (bench/RESULTS.md, issue 32, "idle memory"). Holding the young generation at
 * its initial size until the app listens keeps that one-off growth out of idle memory; traffic
 * then grows it as before (`releaseYoungGeneration`, called by launch.ts once listening).
 *
 * Imported first by main.ts, for its side effect, so it runs before any other module is loaded.
 */
const GROWTH_FACTOR_DEFAULT = 2; // `node --v8-options`: --semi-space-growth-factor (default 2)

setFlagsFromString('--semi-space-growth-factor=1');

/** Lets the young generation grow with load again (V8's default growth). */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${GROWTH_FACTOR_DEFAULT}`);
}
