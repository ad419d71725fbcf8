// The multi-replica tests run the built app (dist/) as separate processes. Before `npm test` this
// builds when any source is newer than the build; with --check it only says so (exit 1).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ENTRY } from './app-entry.mjs';

const root = new URL('..', import.meta.url).pathname;
const built = join(root, APP_ENTRY);

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const stale =
  !existsSync(built) ||
  // scripts/ too: the bundler is there (scripts/bundle-app.mjs, bundle-names.mjs).
  Math.max(...['src', 'libs', 'scripts'].map((dir) => newest(join(root, dir)))) > statSync(built).mtimeMs;
if (process.argv.includes('--check')) {
  if (stale) console.error('dist/ is missing or older than src/, libs/ or scripts/: run `npm run build`');
  process.exit(stale ? 1 : 0);
}
if (stale) {
  const run = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
