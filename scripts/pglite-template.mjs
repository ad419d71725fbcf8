// Part of `npm run build`, after `nest build`: the embedded database's template, dist/pglite-template —
// a data folder PGlite made (initdb) with the app's migrations applied, which the app copies into a
// new DATA_DIR instead of creating and migrating one in its own process (src/db/pglite-data-dir.ts).
// initdb costs seconds, so the folder is kept in node_modules/.cache per PGlite version and last
// migration, and only copied by later builds.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LATEST_MIGRATION, migrate } from '../dist/src/db/migrations.js';
import { pgliteVersion, readTemplateMarker, writeTemplate } from '../dist/src/db/pglite-data-dir.js';
import { PgliteDatabase } from '../dist/src/db/pglite-database.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cached = join(root, 'node_modules/.cache/kadu-pglite-template');
const target = join(root, 'dist/pglite-template');

/** The app's migrations, applied as a start applies them (PgliteDatabase opens the folder as it is). */
async function migrated(dir) {
  const db = await PgliteDatabase.open(dir);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  return LATEST_MIGRATION;
}

const marker = readTemplateMarker(cached);
if (
  marker?.pglite !== pgliteVersion() ||
  marker.migration !== LATEST_MIGRATION ||
  !existsSync(join(cached, 'PG_VERSION'))
)
  await writeTemplate(cached, migrated);
rmSync(target, { recursive: true, force: true });
cpSync(cached, target, { recursive: true });
