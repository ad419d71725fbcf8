import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteWasmFlags } from '../../src/db/pglite-wasm-flags.js';
import { installNodeRuntimes, NODE_RUNTIMES } from '../support/node-runtimes.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * The production bundle's loader (scripts/bundle-loader.cjs, which the build writes as
 * dist/kadu/kadu.cjs): it runs dist/kadu/main.cjs and keeps V8's compiled code between starts
 * (docs/operators/operating.md, "The production bundle"). Here with a small bundle of the same
 * shape: it exports `started`, a promise of the app listening.
 */
describe('the production bundle loader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kadu-loader-'));
    copyFileSync(join(root, 'scripts', 'bundle-loader.cjs'), join(dir, 'kadu.cjs'));
    writeFileSync(
      join(dir, 'main.cjs'),
      `const { hostname } = require('node:os');
       const answer = (n) => n * 2;
       const { sep } = require('node:path');
       exports.started = Promise.resolve().then(() => {
         process.stdout.write(JSON.stringify({ answer: answer(21), sep, dirname: __dirname, host: typeof hostname() }));
       });`,
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The topology's variables as each test sets them, none inherited from the run's environment.
  const TOPOLOGY_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'];
  const envWith = (topology: Record<string, string>) => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !TOPOLOGY_VARIABLES.includes(name))),
    ...topology,
  });
  const start = (topology: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(dir, 'kadu.cjs')], { encoding: 'utf8', timeout: 30_000, env: envWith(topology) });
  const caches = () => readdirSync(dir).filter((name) => name.endsWith('.v8cache'));

  it('runs the bundle as Node requires a file (its require and __dirname), warning nothing', () => {
    const run = start();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ answer: 42, sep: '/', dirname: dir, host: 'string' });
  });

  it('saves the compiled code once the app has started, and the next start uses it without saving again', () => {
    expect(start().status).toBe(0);
    expect(caches()).toHaveLength(1);
    const saved = statSync(join(dir, caches()[0]!)).mtimeMs;
    const again = start();
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ answer: 42 });
    expect(caches()).toHaveLength(1);
    expect(statSync(join(dir, caches()[0]!)).mtimeMs).toBe(saved);
  });

  it("keeps each topology's compiled code apart: a topology's first start saves its own, later ones use it", () => {
    const replica = { DATABASE_URL: 'postgres://db/kadu', REDIS_URL: 'redis://cache:6379' };
    expect(start().status).toBe(0);
    expect(start(replica).status).toBe(0);
    expect(start({ DATABASE_URL: 'postgres://db/kadu' }).status).toBe(0);
    expect(start({ REDIS_CLUSTER_NODES: 'a:7000' }).status).toBe(0);
    expect(caches().sort()).toEqual([
      'main-__BUNDLE_HASH__-pglite-redis.v8cache',
      'main-__BUNDLE_HASH__-pglite.v8cache',
      'main-__BUNDLE_HASH__-postgres-redis.v8cache',
      'main-__BUNDLE_HASH__-postgres.v8cache',
    ]);
    // The loader saves by renaming a new file over the old one: a file saved again has a new inode.
    const files = () => new Map(caches().map((name) => [name, statSync(join(dir, name)).ino]));
    const saved = files();
    const restarts: Record<string, string>[] = [{}, replica, { REDIS_SENTINELS: 'a:26379' }];
    for (const topology of restarts) {
      const again = start(topology);
      expect(again.stderr).toBe('');
      expect(JSON.parse(again.stdout)).toMatchObject({ answer: 42 });
    }
    expect(files()).toEqual(saved);
  });

  it('starts all the same where it cannot save the code', () => {
    // Where the cache file would go, a folder: neither read nor written (as root, a read-only
    // folder would not stop the write).
    mkdirSync(join(dir, 'main-__BUNDLE_HASH__-pglite.v8cache'));
    for (let i = 0; i < 2; i++) {
      const run = start();
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ answer: 42 });
    }
  });

  describe.each([
    ['this Node', process.execPath],
    ['Node 24', NODE_RUNTIMES['Node 24']],
  ])("the embedded database's WebAssembly flags on %s", (line, node) => {
    // Node 24 from tools/node-runtimes (installed here on a clean clone).
    beforeAll(() => (line === 'Node 24' ? installNodeRuntimes() : undefined), 120_000);

    // What the app does before it listens, on that Node's V8: PgliteDatabase.open sets them.
    const writeBundleSettingTheFlags = () => {
      const v8 = spawnSync(node, ['-p', 'process.versions.v8'], { encoding: 'utf8' }).stdout.trim();
      writeFileSync(
        join(dir, 'main.cjs'),
        `const { setFlagsFromString } = require('node:v8');
         exports.started = Promise.resolve().then(() => {
           for (const flag of ${JSON.stringify(pgliteWasmFlags(v8))}) setFlagsFromString(flag);
         });`,
      );
    };
    const startOn = () =>
      spawnSync(node, [join(dir, 'kadu.cjs')], { encoding: 'utf8', timeout: 30_000, env: envWith({}) });
    // The loader saves by renaming a new file over the old one: a new file, a new inode.
    const savedFile = () => {
      expect(caches()).toHaveLength(1);
      return statSync(join(dir, caches()[0]!)).ino;
    };

    it('are set before the bundle compiles: code saved after the app set them is accepted by the next start', () => {
      writeBundleSettingTheFlags();
      const first = startOn();
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      const saved = savedFile();
      expect(startOn().status).toBe(0);
      // Rejected code (made under other flags) would be saved again.
      expect(savedFile()).toBe(saved);
    });
  });
});
