// Part of `npm run build`, after `nest build`: the embedded database's template, dist/pglite-template —
// a data folder PGlite made (initdb), which the app copies into a new DATA_DIR instead of creating
// one in its own process (src/db/pglite-data-dir.ts). initdb costs seconds, so the folder is kept
// in node_modules/.cache per PGlite version and only copied by later builds.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATE_MARKER, writeTemplate } from '../dist/src/db/pglite-data-dir.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const version = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
const cached = join(root, 'node_modules/.cache/kadu-pglite-template', version);
const target = join(root, 'dist/pglite-template');
if (!existsSync(join(cached, TEMPLATE_MARKER))) await writeTemplate(cached);
rmSync(target, { recursive: true, force: true });
cpSync(cached, target, { recursive: true });
