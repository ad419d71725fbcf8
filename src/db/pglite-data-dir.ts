import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pgliteWasmFlags } from './pglite-wasm-flags.js';

/**
 * The embedded database's data folder, made ready before the app's PGlite opens it (issue 32,
 * bench/RESULTS.md "Start-up"). Left to itself, PGlite creates a missing database inside the
 * app's process: a second PostgreSQL instance in memory plus initdb, then a tar copy of the
 * result — about 2.7 s of CPU and ~500 MB of WASM memory that the process keeps once done
 * (V8 returns it only after a full collection nobody triggers). Here a new folder is, in order:
 *
 * - a copy of the data folder `npm run build` made (dist/pglite-template, scripts/pglite-template.mjs)
 *   with this version of PGlite, migrations applied — a directory copy, tens of milliseconds, after
 *   which the start's own `migrate` finds nothing to do (or applies what is newer than the template);
 * - else (a checkout run from source, or node_modules upgraded since the build) made by PGlite in a
 *   child process, whose memory goes with it when it exits.
 *
 * Either way the folder appears complete or not at all: it is made beside its place and renamed.
 */
const TEMPLATE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pglite-template');
/** Written in the template by the build, not copied: the PGlite version that made it. */
export const TEMPLATE_MARKER = 'kadu-pglite-template.json';

const requireHere = createRequire(import.meta.url);
const pgliteEntry = (): string => requireHere.resolve('@electric-sql/pglite');
/** The installed PGlite's version: a template made by another is not used. */
export const pgliteVersion = (): string =>
  (JSON.parse(readFileSync(join(dirname(pgliteEntry()), '..', 'package.json'), 'utf8')) as { version: string }).version;

export type DataDirOrigin = 'existing' | 'template' | 'created';

/** Makes `dir` a PGlite data folder unless it is one (or holds something else: PGlite then decides). */
export async function prepareDataDir(dir: string, template = TEMPLATE): Promise<DataDirOrigin> {
  if (existsSync(join(dir, 'PG_VERSION'))) return 'existing';
  if (existsSync(dir) && readdirSync(dir).length) return 'existing';
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  let origin: DataDirOrigin;
  try {
    if (templateMatches(template)) {
      copyTree(template, staging, (name) => name !== TEMPLATE_MARKER);
      origin = 'template';
    } else {
      await createDataDir(staging);
      origin = 'created';
    }
    if (existsSync(dir)) rmdirSync(dir);
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return origin;
}

/**
 * `cpSync(from, to, { recursive: true })` for a data folder's plain files and directories, at
 * half its CPU: ~1 000 files, where cpSync's checks of each source and destination were most of
 * the copy's ~0.15 s (issue 32, bench/RESULTS.md "Start-up"). copyFileSync keeps each file's mode,
 * directories get theirs; anything else (a link) is left to cpSync.
 */
function copyTree(from: string, to: string, keep: (name: string) => boolean = () => true): void {
  mkdirSync(to);
  chmodSync(to, statSync(from).mode & 0o7777);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (!keep(entry.name)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile()) copyFileSync(source, target);
    else cpSync(source, target, { recursive: true, verbatimSymlinks: true });
  }
}

/** A template of another PGlite version is not used; one of older migrations is (the start migrates the rest). */
function templateMatches(template: string): boolean {
  return readTemplateMarker(template)?.pglite === pgliteVersion() && existsSync(join(template, 'PG_VERSION'));
}

// PGlite's CommonJS entry in a bare `node -e`: nothing of the app is loaded in the child.
const CREATE = `const { PGlite } = require(process.argv[1]);
(async () => { const db = new PGlite(process.argv[2]); await db.waitReady; await db.close(); })()
  .catch((error) => { console.error(error); process.exit(1); });`;

/** Runs PGlite's own creation of a data folder (initdb) in a child process, under the app's WebAssembly flags. */
export async function createDataDir(dir: string): Promise<void> {
  mkdirSync(dirname(dir), { recursive: true });
  await promisify(execFile)(process.execPath, [...pgliteWasmFlags(), '-e', CREATE, pgliteEntry(), dir], {
    maxBuffer: 1 << 20,
  });
}

/** What the build's template records: the PGlite version that made it, the last migration applied. */
export interface TemplateMarker {
  readonly pglite: string;
  readonly migration?: number;
}

/**
 * The build's template: a data folder PGlite made, then `migrate` (given by the build, which runs
 * the app's migrations on it: an embedded first start then skips them), and the marker.
 */
export async function writeTemplate(template: string, migrate?: (dir: string) => Promise<number>): Promise<void> {
  rmSync(template, { recursive: true, force: true });
  await createDataDir(template);
  const migration = migrate ? await migrate(template) : undefined;
  const marker: TemplateMarker = { pglite: pgliteVersion(), ...(migration ? { migration } : {}) };
  writeFileSync(join(template, TEMPLATE_MARKER), JSON.stringify(marker));
}

/** The marker of a template folder, or undefined when it has none. */
export function readTemplateMarker(template: string): TemplateMarker | undefined {
  try {
    return JSON.parse(readFileSync(join(template, TEMPLATE_MARKER), 'utf8')) as TemplateMarker;
  } catch {
    return undefined;
  }
}
