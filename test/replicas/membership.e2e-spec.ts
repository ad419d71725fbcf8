import { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 22: each replica caches what it read of a member (MEMBERSHIP_MAX_AGE_MS). A role change
 * or a removal made through one replica is heard by the other through Redis and holds there on
 * the member's very next request, with the token it already had — not once the cache has aged.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;

const WRITE_TOOLS = ['kadu_tasks_create', 'kadu_tasks_run', 'kadu_webhooks_create'];

shared.describe('replicas: a member changed on one replica', () => {
  let owner: RemoteClient;

  beforeAll(async () => {
    s3 = await startS3Server();
    set = await ReplicaSet.start({ count: 2, s3 });
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
  });

  /** One member, two tokens (one per door), talking to `url`. */
  async function as(user: string, role: 'owner' | 'admin' | 'operator', url: string): Promise<RemoteClient> {
    return new RemoteClient(url, await set.token({ user, role }), await set.token({ user, role, audience: 'api' }));
  }

  async function addMember(email: string, role: 'admin' | 'operator'): Promise<string> {
    owner ??= await as('olga@acme.test', 'owner', set.replicas[0]!.url);
    const added = await owner.rest('post', '/api/v1/members', { email, name: email.split('@')[0], role });
    expect(added.status).toBe(201);
    return added.body.data.id as string;
  }

  const toolNames = async (client: RemoteClient): Promise<string[]> => {
    const listed = await client.mcp('2026', 'tools/list');
    expect(listed.status).toBe(200);
    return (listed.body.result.tools as { name: string }[]).map((t) => t.name);
  };

  it('a member demoted through replica 1 loses the write tools on replica 2 on the next request', async () => {
    const id = await addMember('dana@acme.test', 'admin');
    const other = await as('dana@acme.test', 'admin', set.replicas[1]!.url);
    // Replica 2 reads (and caches) the member as an admin.
    expect(await toolNames(other)).toEqual(expect.arrayContaining(WRITE_TOOLS));
    const task = { name: 'Before', kind: 'echo', cost_cap: 1 };
    expect((await other.rest('post', '/api/v1/tasks', task)).status).toBe(201);

    const demoted = await owner.rest('patch', `/api/v1/members/${id}`, { role: 'viewer' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.data.role).toBe('viewer');

    const listed = await toolNames(other);
    expect(listed).toContain('kadu_tasks_list');
    for (const tool of WRITE_TOOLS) expect(listed).not.toContain(tool);
    const call = await other.mcp('2026', 'tools/call', {
      name: 'kadu_tasks_create',
      arguments: { name: 'After', kind: 'echo', cost_cap: 1 },
    });
    expect(call.body.error.code).toBe(-32602);
    const rest = await other.rest('post', '/api/v1/tasks', { ...task, name: 'After' });
    expect(rest.status).toBe(403);
    expect(rest.body.errors[0].code).toBe('forbidden');
  });

  it('a member removed through replica 1 is refused on replica 2 on the next request, on both doors', async () => {
    const id = await addMember('rui@acme.test', 'operator');
    const other = await as('rui@acme.test', 'operator', set.replicas[1]!.url);
    expect((await other.rest('get', '/api/v1/me')).status).toBe(200);
    expect((await other.tool('2026', 'kadu_tasks_list')).isError).toBe(false);

    expect((await owner.rest('delete', `/api/v1/members/${id}`)).status).toBe(200);

    const me = await other.rest('get', '/api/v1/me');
    expect(me.status).toBe(403);
    expect(me.body.errors[0].code).toBe('member_removed');
    const tool = await other.tool('2026', 'kadu_tasks_list');
    expect(tool.isError).toBe(true);
    expect(tool.body).toMatchObject({ status: 403, errors: [{ code: 'member_removed' }] });
  });
});
