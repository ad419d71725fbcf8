import { EchoBenchModule } from '../../bench/fixtures/echo.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * The benchmark's app (bench/fixtures/kadu-echo.main.ts): Kadu plus EchoBenchModule, a feature
 * module like any other. It must start (its guards' providers come from the modules it imports,
 * none being global) and answer its echo at both doors, or `npm run bench` cannot run.
 */
let kadu: KaduTestApp;
let member: KaduClient;

beforeAll(async () => {
  kadu = await startKadu({}, [EchoBenchModule]);
  member = new KaduClient(kadu, { org: 'bench', user: 'bench@bench.test', role: 'admin' });
});
afterAll(() => kadu.close());

it('REST: POST /api/v1/bench/echo answers the echo', async () => {
  const res = await member.rest('post', '/api/v1/bench/echo', { text: 'ab', times: 3 });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toEqual({ data: { text: 'ababab', by: 'bench@bench.test' } });
});

it('MCP: the bench_echo tool answers the same echo', async () => {
  const res = await member.mcp('2026', 'tools/call', { name: 'bench_echo', arguments: { text: 'ab', times: 3 } });
  expect(res.status, res.text).toBe(200);
  const result = res.body.result;
  expect(result.isError ?? false).toBe(false);
  expect(JSON.parse(result.content[0].text)).toEqual({ data: { text: 'ababab', by: 'bench@bench.test' } });
});
