import { modernRequest } from '@kobana/nest-mcp/testing';
import { TokenVerifier } from '../../src/auth/token-verifier.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { oneConnection } from '../support/one-connection.js';

/**
 * A kept-alive connection repeating its token is admitted on the verdict its previous request
 * earned (src/auth/connection-verdict.ts, issue 32); everything a fresh verification would refuse
 * is still refused on that same connection: another token, another door's token, an expired
 * token, and what the member's current standing takes away. Time is moved with a fake clock.
 */
let kadu: KaduTestApp;
let owner: KaduClient;
let conn: Awaited<ReturnType<typeof oneConnection>>;

beforeAll(async () => {
  kadu = await startKadu();
  owner = new KaduClient(kadu, { role: 'owner', user: 'olga@acme.test' });
  expect((await owner.rest('get', '/api/v1/me')).status).toBe(200);
});
afterAll(() => kadu.close());
beforeEach(async () => {
  conn = await oneConnection(kadu.server);
});
afterEach(() => {
  conn.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const mcp = (token: string, method = 'tools/list', params: Record<string, unknown> = {}) => {
  const r = modernRequest(method, params, { id: 'c' });
  return conn.send('POST', '/mcp', { ...r.headers, ...bearer(token) }, r.body);
};
const toolNames = async (token: string) => {
  const res = await mcp(token);
  expect(res.status, res.text).toBe(200);
  return (res.body.result.tools as { name: string }[]).map((t) => t.name);
};

it('the same token, repeated on one connection, is verified once and answered every time (both doors)', async () => {
  const verify = vi.spyOn(kadu.app.get(TokenVerifier), 'verify');
  const token = await kadu.token();
  const api = await kadu.token({ audience: 'api' });
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await mcp(token, 'tools/call', { name: 'kadu_tasks_list', arguments: {} }));
  for (let i = 0; i < 3; i++) answers.push(await conn.send('GET', '/api/v1/me', bearer(api)));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
  expect(answers.slice(0, 4).map((a) => a.body.result?.isError ?? false)).toEqual([false, false, false, false]);
  expect(answers.slice(4).every((a) => a.body.data.member.email === 'ana@acme.test')).toBe(true);
  expect(new Set(answers.map((a) => a.clientPort)).size).toBe(1);
  // Once per token: the repeats were admitted on the connection's verdict.
  expect(verify).toHaveBeenCalledTimes(2);
});

it('another token on the same connection is judged on its own: a forged one is refused', async () => {
  const token = await kadu.token();
  expect((await mcp(token)).status).toBe(200);
  const forged = `${token.slice(0, -4)}AAAA`;
  const refused = await mcp(forged);
  expect(refused.status).toBe(401);
  expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
  expect((await mcp(token)).status).toBe(200);
});

it("the other door's token on the same connection is refused (audience)", async () => {
  const token = await kadu.token();
  const api = await kadu.token({ audience: 'api' });
  expect((await mcp(token)).status).toBe(200);
  expect((await conn.send('GET', '/api/v1/me', bearer(api))).status).toBe(200);
  expect((await mcp(api)).status).toBe(401);
  expect((await conn.send('GET', '/api/v1/me', bearer(token))).status).toBe(401);
});

it('a token sent in a way passport refuses is refused, though the same token was admitted before', async () => {
  const token = await kadu.token({ audience: 'api' });
  expect((await conn.send('GET', '/api/v1/me', bearer(token))).status).toBe(200);
  expect((await conn.send('GET', `/api/v1/me?access_token=${token}`, bearer(token))).status).toBe(401);
  expect((await conn.send('GET', '/api/v1/me', { authorization: `Bearer  ${token}` })).status).toBe(401);
  expect((await conn.send('GET', '/api/v1/me', { authorization: `Bearer ${token} x` })).status).toBe(401);
  expect((await conn.send('GET', '/api/v1/me', bearer(token))).status).toBe(200);
});

it.each(['mcp', 'api'] as const)(
  'an expiring token is refused from its exp on, on the connection that used it (%s door)',
  async (door) => {
    const start = Math.ceil(Date.now() / 1000) * 1000;
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const token = await kadu.token({ ttlSeconds: 30, audience: door });
    const send = () => (door === 'mcp' ? mcp(token) : conn.send('GET', '/api/v1/me', bearer(token)));
    expect((await send()).status).toBe(200);
    vi.setSystemTime(start + 29_000);
    expect((await send()).status).toBe(200);
    vi.setSystemTime(start + 30_000);
    const refused = await send();
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('the token has expired');
  },
);

it("a member demoted, then removed, loses the tools, then the door, on the connection's next request", async () => {
  const added = await owner.rest('post', '/api/v1/members', { email: 'kai@acme.test', name: 'Kai', role: 'admin' });
  expect(added.status).toBe(201);
  const token = await kadu.token({ user: 'kai@acme.test', role: 'admin' });
  expect(await toolNames(token)).toContain('kadu_tasks_create');
  expect(await toolNames(token)).toContain('kadu_tasks_create');

  expect((await owner.rest('patch', `/api/v1/members/${added.body.data.id}`, { role: 'viewer' })).status).toBe(200);
  const listed = await toolNames(token);
  expect(listed).toContain('kadu_tasks_list');
  expect(listed).not.toContain('kadu_tasks_create');

  expect((await owner.rest('delete', `/api/v1/members/${added.body.data.id}`)).status).toBe(200);
  const call = await mcp(token, 'tools/call', { name: 'kadu_tasks_list', arguments: {} });
  expect(call.body.result.isError).toBe(true);
  expect(call.text).toContain('member_removed');
});
