import request from 'supertest';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { DATABASE, type Database } from '../../src/db/database.js';
import { MEMBERSHIP_MAX_AGE_MS } from '../../src/orgs/org-context.service.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';

/**
 * Verified tokens and membership are cached per process (issue 22); what a member may do still
 * follows their current role and standing: a demotion or a removal made through this replica holds
 * on the member's next request, one made elsewhere within MEMBERSHIP_MAX_AGE_MS, and a token is
 * refused from the second its `exp` names, cached or not. Time is moved with a fake clock (Date
 * only), never waited for.
 */
let kadu: KaduTestApp;
let owner: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  owner = new KaduClient(kadu, { role: 'owner', user: 'olga@acme.test' });
  expect((await owner.rest('get', '/api/v1/me')).status).toBe(200);
});
afterAll(() => kadu.close());
afterEach(() => vi.useRealTimers());

const WRITE_TOOLS = ['kadu_tasks_create', 'kadu_tasks_run', 'kadu_webhooks_create'];

async function addMember(email: string, role: string): Promise<{ id: string; client: KaduClient }> {
  const added = await owner.rest('post', '/api/v1/members', { email, name: email.split('@')[0], role });
  expect(added.status).toBe(201);
  return { id: added.body.data.id, client: owner.as({ role: role as never, user: email }) };
}

const names = async (client: KaduClient, era: (typeof ERAS)[number]) =>
  (await client.listTools(era)).map((t) => t.name);

describe('a demoted member', () => {
  it.each(ERAS)('loses the write tools on the next request with the same token (%s)', async (era) => {
    const { id, client } = await addMember(`dana-${era}@acme.test`, 'admin');
    expect(await names(client, era)).toEqual(expect.arrayContaining(WRITE_TOOLS));
    expect((await client.rest('post', '/api/v1/tasks', { name: 'Before', kind: 'echo', cost_cap: 1 })).status).toBe(
      201,
    );

    const demoted = await owner.rest('patch', `/api/v1/members/${id}`, { role: 'viewer' });
    expect(demoted.body.data.role).toBe('viewer');

    const listed = await names(client, era);
    expect(listed).toContain('kadu_tasks_list');
    for (const tool of WRITE_TOOLS) expect(listed).not.toContain(tool);
    const call = await client.mcp(era, 'tools/call', {
      name: 'kadu_tasks_create',
      arguments: { name: 'After', kind: 'echo', cost_cap: 1 },
    });
    expect(call.body.error.code).toBe(-32602);
    const rest = await client.rest('post', '/api/v1/tasks', { name: 'After', kind: 'echo', cost_cap: 1 });
    expect(rest.status).toBe(403);
    expect(rest.body.errors[0].code).toBe('forbidden');
    expect((await client.rest('get', '/api/v1/me')).body.data.member.role).toBe('viewer');
  });

  it('keeps a role the authorization server issues after the change (a new token stands)', async () => {
    const { id } = await addMember('nina@acme.test', 'viewer');
    expect((await owner.rest('patch', `/api/v1/members/${id}`, { role: 'operator' })).status).toBe(200);
    // A token issued a second after the change names the role the authorization server gives now.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1_000 });
    const fresh = owner.as({ role: 'operator', user: 'nina@acme.test' });
    expect(await names(fresh, '2026')).toContain('kadu_tasks_run');
  });

  it('changed on another replica, is demoted here within MEMBERSHIP_MAX_AGE_MS', async () => {
    const { id, client } = await addMember('omar@acme.test', 'admin');
    expect(await names(client, '2026')).toContain('kadu_tasks_create');
    // Another replica writes the change to the shared database; this one is not told.
    const db = kadu.app.get<Database>(DATABASE);
    await db.query(`update members set role = 'viewer', updated_at = now() where id = $1`, [id]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + MEMBERSHIP_MAX_AGE_MS });
    expect(await names(client, '2026')).not.toContain('kadu_tasks_create');
  });
});

describe('a removed member', () => {
  it('is refused on the next request with the same (cached) token, on both doors', async () => {
    const { id, client } = await addMember('rui@acme.test', 'operator');
    expect((await client.rest('get', '/api/v1/me')).status).toBe(200);
    expect((await client.tool('2026', 'kadu_tasks_list')).isError).toBe(false);

    expect((await owner.rest('delete', `/api/v1/members/${id}`)).status).toBe(200);

    const me = await client.rest('get', '/api/v1/me');
    expect(me.status).toBe(403);
    expect(me.body.errors[0].code).toBe('member_removed');
    for (const era of ERAS) {
      const tool = await client.tool(era, 'kadu_tasks_list');
      expect(tool.isError).toBe(true);
      expect(tool.body).toMatchObject({ status: 403, errors: [{ code: 'member_removed' }] });
    }
  });
});

describe('an expiring token', () => {
  const discover = (token: string) => {
    const r = modernRequest('server/discover', {}, { id: 1 });
    return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
  };

  it.each(['mcp', 'api'] as const)(
    'is accepted until the second before exp and refused from exp on (%s door)',
    async (door) => {
      const start = Math.ceil(Date.now() / 1000) * 1000;
      vi.useFakeTimers({ toFake: ['Date'], now: start });
      const token = await kadu.token({ ttlSeconds: 30, audience: door });
      const exp = start + 30_000;
      const send =
        door === 'mcp'
          ? () => discover(token)
          : () => request(kadu.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);

      expect((await send()).status).toBe(200);
      vi.setSystemTime(exp - 1_000);
      expect((await send()).status).toBe(200);
      vi.setSystemTime(exp);
      const refused = await send();
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(JSON.stringify(refused.body)).toContain('the token has expired');
    },
  );
});
