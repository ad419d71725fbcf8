import { createRequire } from 'node:module';
import type { Attributes } from '@opentelemetry/api';

type Hash = (attributes: Attributes) => string;
interface SdkMetricsUtils {
  hashAttributes: Hash & { kaduMemoised?: true };
}

const require = createRequire(import.meta.url);

/**
 * The metrics SDK finds a measurement's series by a string it makes from the label set on every
 * record (its keys sorted, then `JSON.stringify`): the largest single item of what metrics cost per
 * traced call, for label sets that never change — the module and the request observer hand it the
 * same frozen object for every request of one outcome (mcp-telemetry.ts, request-observer.ts). So
 * the string of a frozen set whose values are all primitives is made once and kept with the object;
 * any other set is hashed as before. Installed once per process, before the first instrument makes
 * its storages (they take the function when built). bench/RESULTS.md, issue 32, tracing.
 */
export function memoiseAttributeHashes(utils: SdkMetricsUtils = sdkMetricsUtils()): void {
  const hash = utils.hashAttributes;
  if (hash.kaduMemoised) return;
  const kept = new WeakMap<Attributes, string>();
  const memoised = (attributes: Attributes): string => {
    if (!Object.isFrozen(attributes)) return hash(attributes);
    let known = kept.get(attributes);
    if (known === undefined) {
      known = hash(attributes);
      // An array value may still change inside a frozen object: such a set is never kept.
      if (Object.values(attributes).every((value) => typeof value !== 'object' || value === null))
        kept.set(attributes, known);
    }
    return known;
  };
  utils.hashAttributes = Object.assign(memoised, { kaduMemoised: true as const });
}

/** The module the SDK's attribute maps read `hashAttributes` from (CommonJS: its exports object). */
function sdkMetricsUtils(): SdkMetricsUtils {
  return require('@opentelemetry/sdk-metrics/build/src/utils.js') as SdkMetricsUtils;
}
