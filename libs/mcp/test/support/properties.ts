import fc from 'fast-check';

/**
 * The one way the package's suite runs a property (issue 34): on a FIXED seed, so that a green run
 * proves the same draws every day and a red one is reproducible. `npm run fuzz:explore` at the
 * repository root runs the same properties on random seeds with more runs (FUZZ_SEED, FUZZ_RUNS);
 * a counterexample found there becomes a fixed regression case beside the property. On failure the
 * error names the seed, the path and the counterexample, and how to run exactly that again.
 * ESLint forbids fc.assert and fc.check anywhere else (eslint.config.mjs). The app keeps its own
 * copy (test/support/properties.ts): it must not import this package's tests.
 */
export const FIXED_SEED = 34;
/** FUZZ_SCALE multiplies a suite's runs and time limits (`npm run fuzz:explore` sets 4); 1 in the suite. */
export const FUZZ_SCALE = Number(process.env.FUZZ_SCALE ?? 1);

export interface PropertyRun {
  /** Runs on the fixed seed; FUZZ_RUNS replaces it when set. */
  readonly numRuns: number;
  /** Overrides FIXED_SEED for one property (a seed that once found something, kept). */
  readonly seed?: number;
}

/** The seed and the run count this process uses: FUZZ_SEED / FUZZ_RUNS when exploring, else the suite's. */
export function propertySettings(run: PropertyRun): { seed: number; numRuns: number; exploring: boolean } {
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  const runs = process.env.FUZZ_RUNS === undefined ? undefined : Number(process.env.FUZZ_RUNS);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new Error(`FUZZ_SEED must be an integer: ${process.env.FUZZ_SEED}`);
  if (runs !== undefined && !(Number.isInteger(runs) && runs > 0))
    throw new Error(`FUZZ_RUNS must be a positive integer: ${process.env.FUZZ_RUNS}`);
  return { seed: seed ?? run.seed ?? FIXED_SEED, numRuns: runs ?? run.numRuns, exploring: seed !== undefined };
}

/** Runs `property` (sync or async) on the suite's seed; throws with the seed and the counterexample on failure. */
export async function checkProperty<T>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>,
  run: PropertyRun,
): Promise<void> {
  const { seed, numRuns, exploring } = propertySettings(run);
  if (exploring) console.log(`[fuzz] ${name}: seed ${seed}, ${numRuns} runs`);
  const details = await fc.check(property, { seed, numRuns, endOnFailure: true });
  if (!details.failed) return;
  const again = `FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`;
  const error = details.errorInstance;
  const got = error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error);
  throw new Error(
    `Property "${name}" failed on seed ${seed}${exploring ? ' (exploring)' : ' (the fixed seed)'}; run it again with ${again}\n` +
      `${cut(fc.defaultReportMessage(details) ?? '')}\nGot: ${cut(got ?? 'nothing')}`,
    { cause: error },
  );
}

/** A counterexample can hold a string of a megabyte: the report shows its start (the seed reproduces all of it). */
function cut(text: string, max = 4_000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
