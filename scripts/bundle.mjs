// Part of `npm run build`, after `nest build`: the production bundle, dist/kadu (issue 32, start-up;
// docs/operators/operating.md §"The production bundle"): dist/kadu/main.cjs, made by bundleApp
// (scripts/bundle-app.mjs), and dist/kadu/kadu.cjs (scripts/bundle-loader.cjs), which runs it with
// V8's code cache.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleApp } from './bundle-app.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/kadu');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const { bytes, modules, names } = await bundleApp({
  entry: join(root, 'dist/src/bundle/entry.js'),
  outfile: join(out, 'main.cjs'),
});
const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
writeFileSync(
  join(out, 'kadu.cjs'),
  readFileSync(join(root, 'scripts/bundle-loader.cjs'), 'utf8').replaceAll('__BUNDLE_HASH__', hash),
);
console.log(
  `dist/kadu/main.cjs: ${modules} modules, ${(bytes.length / 1e6).toFixed(1)} MB; keepNames wrappers: ${names.dropped} dropped, ${names.literal} named by a literal, ${names.kept} kept`,
);
