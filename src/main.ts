// Entry point of the unbundled build (`node dist/src/main.js`); `npm start` runs the production
// bundle (scripts/bundle.mjs), whose entry is src/bundle/entry.ts. The young generation is held
// small through start-up (lifecycle/startup-heap.ts): first import.
import './lifecycle/startup-heap.js';
import { runKaduProcess } from './kadu-process.js';

await runKaduProcess();
