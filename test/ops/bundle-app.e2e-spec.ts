import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleApp } from '../../scripts/bundle-app.mjs';

const root = join(import.meta.dirname, '../..');
const NOW = Date.UTC(2026, 11, 7, 9, 5, 7);

/**
 * What the production bundler changes in the packages it bundles (scripts/bundle-app.mjs), seen by
 * a process that loads a bundle of them: Nest's loggers make their date formatter on their first
 * line, not when loaded (bench/RESULTS.md, issue 32, thirty-first pass), and format as before.
 */
describe('the production bundler, on Nest’s loggers', () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    // Inside the checkout (not dist/, which a build may empty), so that the entry's imports
    // resolve to its node_modules.
    mkdirSync(join(root, 'test-output'), { recursive: true });
    dir = mkdtempSync(join(root, 'test-output', 'bundle-app-'));
    writeFileSync(
      join(dir, 'entry.mjs'),
      "import { ConsoleLogger, Logger } from '@nestjs/common';\nexport { ConsoleLogger, Logger };\n",
    );
    bundle = join(dir, 'out.cjs');
    await bundleApp({ entry: join(dir, 'entry.mjs'), outfile: bundle });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Loads the bundle in a fresh process at a fixed clock, counting every `Intl.DateTimeFormat`
   * made; `use` then runs, and Nest's own (unbundled) loggers give their timestamps last.
   */
  function load(use: string): { atLoad: number; afterUse: number; stamps: string[]; nest: string[] } {
    const script = `
      const Real = Intl.DateTimeFormat;
      let made = 0;
      Intl.DateTimeFormat = new Proxy(Real, { construct: (target, args) => (made++, new target(...args)) });
      Date.now = () => ${NOW};
      const { ConsoleLogger, Logger } = require(${JSON.stringify(bundle)});
      const atLoad = made;
      const stamps = ${use};
      const afterUse = made;
      const nest = require('@nestjs/common');
      console.log(JSON.stringify({ atLoad, afterUse, stamps, nest: [new nest.ConsoleLogger().getTimestamp(), nest.Logger.getTimestamp()] }));
    `;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  }

  it('loads without making a date formatter', () => {
    const { atLoad, afterUse } = load('[]');
    expect(atLoad).toBe(0);
    expect(afterUse).toBe(0);
  });

  it('makes each logger’s formatter on its first timestamp, once, formatting as Nest’s own', () => {
    const { atLoad, afterUse, stamps, nest } = load(
      '[new ConsoleLogger().getTimestamp(), new ConsoleLogger().getTimestamp(), Logger.getTimestamp()]',
    );
    expect(atLoad).toBe(0);
    expect(afterUse).toBe(2);
    expect(nest[0]).toMatch(/\d/);
    expect(stamps).toEqual([nest[0], nest[0], nest[1]]);
  });
});
