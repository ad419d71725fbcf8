import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LATEST_MIGRATION, migrate } from './migrations.js';
import { prepareDataDir, readTemplateMarker, TEMPLATE_MARKER, writeTemplate } from './pglite-data-dir.js';
import { PgliteDatabase } from './pglite-database.js';
import { pgliteWasmFlags } from './pglite-wasm-flags.js';

// Recorded, and run as they are: which Node flags the child that creates a folder gets.
vi.mock('node:child_process', async (original) => {
  const actual = await original<typeof import('node:child_process')>();
  return { ...actual, execFile: vi.fn(actual.execFile) };
});

const pgliteVersion = (
  JSON.parse(
    readFileSync(
      join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json'),
      'utf8',
    ),
  ) as { version: string }
).version;

/** A template folder as the build writes it: a data folder's files and the marker naming a PGlite version. */
function template(root: string, version: string): string {
  const dir = join(root, 'template');
  mkdirSync(join(dir, 'base'), { recursive: true });
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  writeFileSync(join(dir, 'base', 'relation'), 'rows');
  writeFileSync(join(dir, TEMPLATE_MARKER), JSON.stringify({ pglite: version }));
  return dir;
}

/** How a new DATA_DIR gets its embedded database (issue 32: start-up time and memory). */
describe('the embedded database folder, before PGlite opens it', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kadu-pglite-dir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("a new folder is a copy of the build's template for this PGlite version, without the marker", async () => {
    const dir = join(root, 'db');
    expect(await prepareDataDir(dir, template(root, pgliteVersion))).toBe('template');
    expect(readFileSync(join(dir, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(dir, 'base', 'relation'), 'utf8')).toBe('rows');
    expect(existsSync(join(dir, TEMPLATE_MARKER))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['db', 'template']);
  });

  it("the copy keeps each file's and folder's mode", async () => {
    const source = template(root, pgliteVersion);
    chmodSync(join(source, 'base'), 0o700);
    chmodSync(join(source, 'base', 'relation'), 0o600);
    const dir = join(root, 'db');
    expect(await prepareDataDir(dir, source)).toBe('template');
    expect(statSync(join(dir, 'base')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'base', 'relation')).mode & 0o777).toBe(0o600);
  });

  it('an empty folder (made by hand) is filled the same way', async () => {
    const dir = join(root, 'db');
    mkdirSync(dir);
    expect(await prepareDataDir(dir, template(root, pgliteVersion))).toBe('template');
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
  });

  it('a folder that holds a database is left as it is', async () => {
    const dir = join(root, 'db');
    mkdirSync(dir);
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    expect(await prepareDataDir(dir, template(root, pgliteVersion))).toBe('existing');
    expect(readdirSync(dir)).toEqual(['PG_VERSION']);
  });

  it("without a template of this PGlite version, PGlite creates the database in a child process; the app's PGlite opens it", async () => {
    const dir = join(root, 'db');
    expect(await prepareDataDir(dir, template(root, '0.0.0-other'))).toBe('created');
    expect(existsSync(join(dir, 'base', 'relation'))).toBe(false);
    // Its PGlite compiles under the app's WebAssembly flags (on Node 24: no ~600 MB compilation).
    const [command, args] = vi.mocked(execFile).mock.calls.at(-1)!;
    expect(command).toBe(process.execPath);
    expect((args as string[]).slice(0, pgliteWasmFlags().length + 1)).toEqual([...pgliteWasmFlags(), '-e']);
    const db = await PgliteDatabase.open(dir);
    try {
      expect(await db.query<{ answer: number }>('select 41 + 1 as answer')).toEqual([{ answer: 42 }]);
      // The settings the app starts PostgreSQL with (pglite-database.ts), not initdb's 128MB.
      expect(await db.query('show shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await db.close();
    }
    expect(readdirSync(root).sort()).toEqual(['db', 'template']);
  }, 120_000);

  it("the build's template holds the migrated database: a first start copies it and has no migration left to apply", async () => {
    const built = join(root, 'built');
    // As scripts/pglite-template.mjs makes it.
    await writeTemplate(built, async (dir) => {
      const db = await PgliteDatabase.open(dir);
      await migrate(db).finally(() => db.close());
      return LATEST_MIGRATION;
    });
    expect(readTemplateMarker(built)).toEqual({ pglite: pgliteVersion, migration: LATEST_MIGRATION });
    const dir = join(root, 'db');
    expect(await prepareDataDir(dir, built)).toBe('template');
    const db = await PgliteDatabase.open(dir);
    try {
      expect(await migrate(db)).toBe(0);
      expect(await db.query('select count(*)::int as n from organizations')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('a copy that fails leaves no half-made folder behind and says why', async () => {
    const source = template(root, pgliteVersion);
    // A file where the folder's parent should be: the copy cannot be made.
    writeFileSync(join(root, 'not-a-folder'), '');
    const dir = join(root, 'not-a-folder', 'db');
    await expect(prepareDataDir(dir, source)).rejects.toThrow(/ENOTDIR|EEXIST|not a directory/);
    expect(readdirSync(root).sort()).toEqual(['not-a-folder', 'template']);
  });
});
