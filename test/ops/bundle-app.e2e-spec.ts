import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleApp } from '../../scripts/bundle-app.mjs';

const root = join(import.meta.dirname, '../..');
const FORMAT: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  day: '2-digit',
  month: '2-digit',
};

/**
 * What the production bundler changes in the packages it bundles (scripts/bundle-app.mjs), seen by
 * a process that loads a bundle of them: Nest's loggers make their date formatter on their first
 * line, not when loaded (bench/RESULTS.md, issue 32, thirty-first pass), and format as before.
 */
describe('the production bundler, on Nest’s loggers', () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    // Inside the checkout, so that the entry's imports resolve to its node_modules.
    mkdirSync(join(root, 'dist'), { recursive: true });
    dir = mkdtempSync(join(root, 'dist', 'bundle-app-test-'));
    writeFileSync(
      join(dir, 'entry.mjs'),
      "import { ConsoleLogger, Logger } from '@nestjs/common';\nexport { ConsoleLogger, Logger };\n",
    );
    bundle = join(dir, 'out.cjs');
    await bundleApp({ entry: join(dir, 'entry.mjs'), outfile: bundle });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Loads the bundle in a fresh process, counting every `Intl.DateTimeFormat` made, at a fixed clock. */
  function load(use: string): { atLoad: number; afterUse: number; stamps: string[] } {
    const script = `
      const Real = Intl.DateTimeFormat;
      let made = 0;
      Intl.DateTimeFormat = new Proxy(Real, { construct: (target, args) => (made++, new target(...args)) });
      Date.now = () => ${Date.UTC(2026, 11, 7, 9, 5, 7)};
      const { ConsoleLogger, Logger } = require(${JSON.stringify(bundle)});
      const atLoad = made;
      const stamps = ${use};
      console.log(JSON.stringify({ atLoad, afterUse: made, stamps }));
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  }

  it('loads without making a date formatter', () => {
    expect(load('[]')).toEqual({ atLoad: 0, afterUse: 0, stamps: [] });
  });

  it('makes each logger’s formatter on its first timestamp, once, formatting as Nest’s own', () => {
    const { atLoad, afterUse, stamps } = load(
      '[new ConsoleLogger().getTimestamp(), new ConsoleLogger().getTimestamp(), Logger.getTimestamp()]',
    );
    const expected = new Intl.DateTimeFormat(undefined, { ...FORMAT, timeZone: 'UTC' }).format(
      Date.UTC(2026, 11, 7, 9, 5, 7),
    );
    expect(atLoad).toBe(0);
    expect(afterUse).toBe(2);
    expect(stamps).toEqual([expected, expected, expected]);
  });
});
