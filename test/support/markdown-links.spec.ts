import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenLinks } from './markdown-links.js';

/** The checker the tarball test relies on (test/adopters/examples.e2e-spec.ts) finds what it must. */
let pkg: string;

beforeAll(async () => {
  pkg = await mkdtemp(join(tmpdir(), 'links-'));
  await mkdir(join(pkg, 'docs'));
  await writeFile(
    join(pkg, 'docs/guide.md'),
    '# Guide\n\n## 2. The ladder\n\nBack to [the README](../README.md#usage).\n',
  );
  await writeFile(
    join(pkg, 'README.md'),
    [
      '# Pkg',
      '## Usage',
      'See [the guide](docs/guide.md), [its ladder](docs/guide.md#2-the-ladder), [usage](#usage),',
      '[the site](https://example.com/x) and <a href="docs/guide.md">the guide</a>.',
      'Broken: [gone](docs/gone.md), [up](../outside.md), [anchor](docs/guide.md#nope), [ref][r].',
      '`src/errors.ts` and `test/adopters/` are repository paths; `tools/call` and `application/json` are not.',
      '```ts',
      "import x from '[not](a-link.md)';",
      '```',
      '[r]: ./missing.md',
    ].join('\n'),
  );
});
afterAll(() => rm(pkg, { recursive: true, force: true }));

it('reports links that leave the package, name nothing, or an absent anchor, and repository paths in the README', async () => {
  expect((await brokenLinks(pkg)).sort()).toEqual(
    [
      'README.md: docs/gone.md (not in the package)',
      'README.md: ../outside.md (leaves the package)',
      'README.md: docs/guide.md#nope (no heading with this anchor)',
      'README.md: ./missing.md (not in the package)',
      'README.md: `src/errors.ts` (not in the package)',
      'README.md: `test/adopters/` (not in the package)',
    ].sort(),
  );
});
