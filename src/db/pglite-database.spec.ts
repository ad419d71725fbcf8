import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { PGLITE_WASM_TIERING_BUDGET, PgliteDatabase } from './pglite-database.js';

vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: vi.fn(),
}));

/** PGlite's WebAssembly is optimized only once hot under load, not for start-up's queries (issue 32). */
describe('the embedded database', () => {
  it("raises V8's WebAssembly tiering budget before PGlite instantiates its module", async () => {
    const db = await PgliteDatabase.open(undefined);
    try {
      expect(vi.mocked(setFlagsFromString)).toHaveBeenCalledWith(`--wasm-tiering-budget=${PGLITE_WASM_TIERING_BUDGET}`);
      expect(PGLITE_WASM_TIERING_BUDGET).toBeGreaterThan(1_800_000); // V8's default
    } finally {
      await db.close();
    }
  }, 60_000);

  it("the bundle's loader sets the same budget before it compiles the bundle (V8 rejects cached code made under other flags)", () => {
    const loader = readFileSync(new URL('../../scripts/bundle-loader.cjs', import.meta.url), 'utf8');
    expect(loader).toContain(`setFlagsFromString('--wasm-tiering-budget=${PGLITE_WASM_TIERING_BUDGET}')`);
  });
});
