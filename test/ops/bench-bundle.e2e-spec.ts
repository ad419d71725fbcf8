import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { kaduFixture, KADU_FIXTURE_BUNDLE } from '../../bench/kadu-bundle.mjs';
import { APP_ENTRY } from '../../scripts/app-entry.mjs';
import { dropUnneededNames } from '../../scripts/bundle-names.mjs';
import { ensureBuilt } from './built-app.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * What the bench measures is the app as `npm start` runs it (bench/kadu-bundle.mjs): the bench's
 * Kadu app, bundled by the production bundler (scripts/bundle-app.mjs), must start and answer its
 * echo at both doors, or `npm run bench` cannot run (CI does not run the bench). And the production
 * bundle the build wrote has been through the pass that drops keepNames' no-op wrappers.
 */
describe('the bundled apps', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it("the production bundle holds no keepNames wrapper that changes nothing (the build's pass ran)", () => {
    const main = join(root, APP_ENTRY, '..', 'main.cjs');
    const again = dropUnneededNames(readFileSync(main, 'latin1'));
    expect(again.dropped).toBe(0);
    // What stays are the names esbuild changed and the forms the pass leaves (a class's static block).
    expect(again.kept).toBeGreaterThan(0);
  }, 60_000);

  describe("the bench's Kadu app, bundled", () => {
    let child: ChildProcess;
    let dataDir: string;
    let ready: { port: number; mcp: string; api: string };

    beforeAll(async () => {
      expect(await kaduFixture(root)).toBe(KADU_FIXTURE_BUNDLE);
      dataDir = mkdtempSync(join(tmpdir(), 'kadu-bench-bundle-'));
      child = spawn(process.execPath, [join(root, KADU_FIXTURE_BUNDLE)], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
      ready = await new Promise((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const line = /^READY (.*)$/m.exec(out);
          if (line) resolve(JSON.parse(line[1]!));
        });
        child.once('exit', (code) => reject(new Error(`the bundled app exited (${code}):\n${out}\n${err}`)));
      });
    }, 120_000);
    afterAll(() => {
      child?.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });

    const post = (
      path: string,
      token: string,
      body: unknown,
      headers: Record<string, string> = { 'Content-Type': 'application/json' },
    ) =>
      fetch(`http://127.0.0.1:${ready.port}${path}`, {
        method: 'POST',
        headers: { ...headers, Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });

    it('REST: POST /api/v1/bench/echo answers the echo', async () => {
      const res = await post('/api/v1/bench/echo', ready.api, { text: 'ab', times: 3 });
      expect(res.status).toBe(200);
      expect(res.headers.get('request-id')).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
      expect(await res.json()).toEqual({ data: { text: 'ababab', by: 'bench@bench.test' } });
    });

    it('MCP 2026: the bench_echo tool answers the same echo', async () => {
      const request = modernRequest('tools/call', { name: 'bench_echo', arguments: { text: 'ab', times: 3 } });
      const res = await post('/mcp', ready.mcp, request.body, request.headers);
      expect(res.status).toBe(200);
      const { result } = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } };
      expect(result.isError ?? false).toBe(false);
      expect(JSON.parse(result.content[0]!.text)).toEqual({ data: { text: 'ababab', by: 'bench@bench.test' } });
    });
  });
});
