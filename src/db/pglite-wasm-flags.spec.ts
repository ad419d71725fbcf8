import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { PGLITE_WASM_TIERING_BUDGET, pgliteWasmFlags } from './pglite-wasm-flags.js';

/** Node 20, 22, 24 and a later V8, as `process.versions.v8` spells them. */
const V8_VERSIONS = ['11.3.244.8-node.38', '12.4.254.21-node.33', '13.6.233.17-node.37', '14.1.146.11-node.14'];

describe("the embedded database's WebAssembly flags", () => {
  it("raise the tiering budget above V8's default up to V8 12 (Node 20, 22)", () => {
    for (const version of V8_VERSIONS.slice(0, 2))
      expect(pgliteWasmFlags(version)).toEqual([`--wasm-tiering-budget=${PGLITE_WASM_TIERING_BUDGET}`]);
    expect(PGLITE_WASM_TIERING_BUDGET).toBeGreaterThan(13_000_000); // V8 12's default (V8 11's: 1 800 000)
  });

  it('turn the optimizing compiler off from V8 13 (Node 24 on)', () => {
    for (const version of V8_VERSIONS.slice(2))
      expect(pgliteWasmFlags(version)).toEqual(['--no-wasm-dynamic-tiering', '--no-wasm-tier-up']);
  });

  it("are this process's V8's by default", () => {
    expect(pgliteWasmFlags()).toEqual(pgliteWasmFlags(process.versions.v8));
  });

  it("the bundle's loader chooses the same flags for every V8 (it cannot import them: it runs before the bundle)", () => {
    const loader = readFileSync(new URL('../../scripts/bundle-loader.cjs', import.meta.url), 'utf8');
    const choice = /const PGLITE_WASM_FLAGS =([^;]+);/.exec(loader)?.[1];
    expect(choice).toBeDefined();
    for (const v8 of V8_VERSIONS)
      expect(runInNewContext(`(${choice!})`, { process: { versions: { v8 } }, Number })).toEqual(pgliteWasmFlags(v8));
  });
});
