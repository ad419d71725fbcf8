import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for this process, before the app handles a request.
 *
 * Why: under concurrent load V8 saw objects from some allocation sites of the authentication path
 * (passport's per-request strategy) alive at every minor GC — they belong to requests in flight —
 * and began allocating them straight in the old generation. Everything those objects reference
 * (the request, the response, all the request allocated) then survives every minor GC and is
 * promoted, to be freed only by full collections. Measured on the Kadu app under 16 connections
 * (bench/RESULTS.md, "pretenuring"): 2.2 MB of 12 MB promoted per minor GC, 14 ms pauses, against
 * 42 kB and 1.3 ms with this off, and ~30 % less CPU per request on both doors. Request-scoped
 * allocation is what this server does; long-lived data (caches) is small and built once.
 *
 * The flag is read when the collector processes its feedback, so setting it at start-up (before
 * any load) has the same effect as `node --no-allocation-site-pretenuring`.
 */
export function disableAllocationSitePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
