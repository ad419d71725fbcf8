// Entry of the production bundle (scripts/bundle.mjs, docs/operators/operating.md §"The
// production bundle"): the same process as main.ts, as one CommonJS file, which has no top-level
// await. The young generation is held small through start-up (lifecycle/startup-heap.ts): first import.
import '../lifecycle/startup-heap.js';
import { runKaduProcess } from '../kadu-process.js';

/** Resolves once the app listens: the bundle's loader then saves V8's compiled code (scripts/app-entry.mjs). */
export const started: Promise<void> = runKaduProcess();
