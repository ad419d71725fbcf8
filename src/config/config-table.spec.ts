import { readFileSync } from 'node:fs';
// @ts-expect-error: a plain ES module script, without types
import { PAGE, pageWith } from '../../scripts/config-table.mjs';
import { renderConfigTable } from './config-table.js';

describe('the configuration table', () => {
  it('docs/operators/configuration.md holds the table the schema renders (node scripts/config-table.mjs)', async () => {
    const page = readFileSync(PAGE as string, 'utf8');
    expect(await (pageWith as (page: string, table: string) => Promise<string>)(page, renderConfigTable())).toBe(page);
  });
});
