import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { kaduFixture, KADU_FIXTURE_BUNDLE } from '../../bench/kadu-bundle.mjs';
import { APP_ENTRY } from '../../scripts/app-entry.mjs';
import { dropUnneededNames } from '../../scripts/bundle-names.mjs';
import request from 'supertest';
import { EchoBenchModule } from '../../bench/fixtures/echo.js';
import { startKadu } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
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
    expect(again.literal).toBe(0);
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
        // The compiled app's base URL (kadu-app.ts), which the OpenAPI document names.
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://localhost:3000' },
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

    /** Every page of the bundled app's tools/list (2026 era). */
    async function bundledTools(): Promise<Record<string, unknown>[]> {
      const tools: Record<string, unknown>[] = [];
      let cursor: string | undefined;
      do {
        const list = modernRequest('tools/list', cursor ? { cursor } : {});
        const res = await post('/mcp', ready.mcp, list.body, list.headers);
        const { result } = (await res.json()) as { result: { tools: Record<string, unknown>[]; nextCursor?: string } };
        tools.push(...result.tools);
        cursor = result.nextCursor;
      } while (cursor);
      return tools;
    }

    it('names what the compiled app names: the same OpenAPI document (schemas by class) and tools', async () => {
      const compiled = await startKadu({}, [EchoBenchModule]);
      try {
        const expected = (await request(compiled.server).get('/api/v1/openapi.json').expect(200)).body;
        const res = await fetch(`http://127.0.0.1:${ready.port}/api/v1/openapi.json`);
        expect(res.status).toBe(200);
        const document = (await res.json()) as { components: { schemas: Record<string, unknown> } };
        expect(Object.keys(document.components.schemas).length).toBeGreaterThan(10);
        expect(document).toEqual(expected);
        const member = new KaduClient(compiled, { org: 'bench', user: 'bench@bench.test', role: 'admin' });
        expect(await bundledTools()).toEqual(await member.listTools('2026'));
      } finally {
        await compiled.close();
      }
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
