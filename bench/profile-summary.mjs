// Prints the functions with the most self time in a .cpuprofile (as written by node --cpu-prof).
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const total = profile.samples.length;
const byFrame = new Map();
for (const node of profile.nodes) {
  // The column too: the Kadu app runs bundled (bench/kadu-bundle.mjs), a few long lines.
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(dist|libs|src)\//, '$1/')}:${lineNumber + 1}:${columnNumber + 1}`;
  byFrame.set(key, (byFrame.get(key) ?? 0) + (node.hitCount ?? 0));
}
const top = [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 25));
for (const [key, hits] of top) console.log(`${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`);
