import { setFlagsFromString } from 'node:v8';
import { PgliteDatabase } from './pglite-database.js';
import { pgliteWasmFlags } from './pglite-wasm-flags.js';

vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: vi.fn(),
}));

/** PGlite's WebAssembly is optimized only once hot under load, or not at all from V8 13 (issue 32). */
describe('the embedded database', () => {
  it("sets this V8's WebAssembly flags before PGlite instantiates its module", async () => {
    const db = await PgliteDatabase.open(undefined);
    try {
      const flags = pgliteWasmFlags();
      expect(flags.length).toBeGreaterThan(0);
      for (const flag of flags) expect(vi.mocked(setFlagsFromString)).toHaveBeenCalledWith(flag);
    } finally {
      await db.close();
    }
  }, 60_000);
});
