import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';

/** Tasks through both doors: one implementation, same envelopes, same rules. */
let kadu: KaduTestApp;
let admin: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

const newTask = (name: string, extra: Record<string, unknown> = {}) => ({ name, kind: 'echo', cost_cap: 10, ...extra });

describe('REST', () => {
  it('creates, reads, updates and soft-deletes a task with the API envelopes', async () => {
    const created = await admin.rest(
      'post',
      '/api/v1/tasks',
      newTask('Monthly close', { description: 'Close the books' }),
    );
    expect(created.status).toBe(201);
    expect(created.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const task = created.body.data;
    expect(task).toMatchObject({
      name: 'Monthly close',
      kind: 'echo',
      cost_cap: 10,
      launch_policy: { roles: [], member_ids: [] },
      destinations: [],
    });
    expect(task.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);

    const patched = await admin.rest('patch', `/api/v1/tasks/${task.id}`, { cost_cap: 25 });
    expect(patched.status).toBe(200);
    expect(patched.body.data.cost_cap).toBe(25);

    expect((await admin.rest('get', `/api/v1/tasks/${task.id}`)).body.data.cost_cap).toBe(25);
    expect((await admin.rest('delete', `/api/v1/tasks/${task.id}`)).status).toBe(200);
    const gone = await admin.rest('get', `/api/v1/tasks/${task.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      status: 404,
      errors: [{ code: 'not_found', title: 'Not found', detail: 'No such task' }],
    });
    const list = await admin.rest('get', '/api/v1/tasks?limit=100');
    expect(list.body.data.map((t: { id: string }) => t.id)).not.toContain(task.id);
  });

  it('validation failures answer 422 listing every field, and store nothing', async () => {
    const res = await admin.rest(
      'post',
      '/api/v1/tasks',
      { name: '', kind: 'dance', cost_cap: 0, org_id: 'x' },
      { 'X-Idempotency-Key': 'bad-1' },
    );
    expect(res.status).toBe(422);
    const params = res.body.errors.map((e: { param: string }) => e.param);
    expect(params).toEqual(expect.arrayContaining(['name', 'kind', 'cost_cap', 'org_id']));
    const retry = await admin.rest('post', '/api/v1/tasks', newTask('Fixed'), { 'X-Idempotency-Key': 'bad-1' });
    expect(retry.status).toBe(201);
  });

  it('pages with an opaque cursor over several pages, newest first, bound to its filters', async () => {
    const org = admin.as({ org: 'paging' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await org.rest('post', '/api/v1/tasks', newTask(`T${i}`))).body.data.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await org.rest(
        'get',
        `/api/v1/tasks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.meta.limit).toBe(2);
      seen.push(...res.body.data.map((t: { id: string }) => t.id));
      cursor = res.body.meta.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);

    const first = await org.rest('get', '/api/v1/executions?limit=1&status=queued');
    expect(first.status).toBe(200);
    const tasksCursor = (await org.rest('get', '/api/v1/tasks?limit=2')).body.meta.next_cursor;
    const reused = await org.rest('get', `/api/v1/executions?status=failed&cursor=${encodeURIComponent(tasksCursor)}`);
    expect(reused.status).toBe(400);
    expect(reused.body.errors[0].code).toBe('invalid_cursor');
    const tampered = await org.rest(
      'get',
      `/api/v1/tasks?cursor=${encodeURIComponent(tasksCursor.slice(0, -3) + 'abc')}`,
    );
    expect(tampered.body.errors[0].code).toBe('invalid_cursor');
  });

  it('a viewer may read but not write (insufficient scope)', async () => {
    const viewer = admin.as({ role: 'viewer', user: 'vic@acme.test' });
    expect((await viewer.rest('get', '/api/v1/tasks')).status).toBe(200);
    const res = await viewer.rest('post', '/api/v1/tasks', newTask('Nope'));
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('insufficient_scope');
  });
});

describe('idempotency keys', () => {
  it('replays the first response, refuses other parameters, and refuses a retry in flight', async () => {
    const key = { 'X-Idempotency-Key': 'create-once' };
    const first = await admin.rest('post', '/api/v1/tasks', newTask('Once'), key);
    const again = await admin.rest('post', '/api/v1/tasks', newTask('Once'), key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const other = await admin.rest('post', '/api/v1/tasks', newTask('Twice'), key);
    expect(other.status).toBe(422);
    expect(other.body.errors[0].code).toBe('idempotency_key_mismatch');

    // The same key through the tool door replays too: one key space per organisation.
    const viaTool = await admin.tool('2026', 'kadu_tasks_create', {
      ...newTask('Once'),
      idempotency_key: 'create-once',
    });
    expect(viaTool.body).toEqual(first.body);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const { DATABASE } = await import('../../src/db/database.js');
    const db = kadu.app.get(DATABASE) as import('../../src/db/database.js').Database;
    const [{ org_id }] = await db.query<{ org_id: string }>(
      `select id as org_id from organizations where slug = 'acme'`,
    );
    // A first request on another replica has claimed the key and not finished.
    await db.query(
      `insert into idempotency_keys (org_id, key, request_hash, state) values ($1, 'in-flight', 'x', 'in_flight')`,
      [org_id],
    );
    const res = await admin.rest('post', '/api/v1/tasks', newTask('Racing'), { 'X-Idempotency-Key': 'in-flight' });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('idempotency_key_in_use');
  });
});

describe.each(ERAS)('tools, %s era', (era) => {
  it('kadu_tasks_create, _get, _update and _list return the REST envelopes', async () => {
    const created = await admin.tool(era, 'kadu_tasks_create', newTask(`Via ${era}`));
    expect(created.isError).toBe(false);
    const id = created.body.data.id;
    const rest = await admin.rest('get', `/api/v1/tasks/${id}`);
    expect((await admin.tool(era, 'kadu_tasks_get', { task_id: id })).body).toEqual(rest.body);
    const updated = await admin.tool(era, 'kadu_tasks_update', { task_id: id, instructions: 'Be brief' });
    expect(updated.body.data.instructions).toBe('Be brief');
    const list = await admin.tool(era, 'kadu_tasks_list', { limit: 100 });
    expect(list.body.meta).toMatchObject({ limit: 100 });
    expect(list.body.data.some((t: { id: string }) => t.id === id)).toBe(true);
  });

  it('validation errors are isError with the API 422 envelope', async () => {
    const res = await admin.tool(era, 'kadu_tasks_create', { name: 'x', kind: 'echo', cost_cap: -1 });
    expect(res.isError).toBe(true);
    expect(res.body).toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ code: 'validation_failed', param: 'cost_cap' })],
    });
  });

  it.each(['kadu_tasks_delete', 'kadu_tasks_set_launch_policy', 'kadu_tasks_set_destinations'])(
    '%s answers an approval link and changes nothing',
    async (name) => {
      const task = (await admin.rest('post', '/api/v1/tasks', newTask('Keep me'))).body.data;
      const args: Record<string, unknown> = { task_id: task.id };
      if (name === 'kadu_tasks_set_launch_policy') Object.assign(args, { roles: ['owner'], member_ids: [] });
      if (name === 'kadu_tasks_set_destinations') Object.assign(args, { destinations: [] });
      const res = await admin.tool(era, name, args);
      expect(res.isError).toBe(true);
      expect(res.body.error.code).toMatch(/^approval_(required|pending)$/);
      expect((await admin.rest('get', `/api/v1/tasks/${task.id}`)).body.data).toEqual(task);
    },
  );

  it('a viewer does not see write tools, and calling one answers like an unknown tool (a role cannot be stepped up)', async () => {
    const viewer = admin.as({ role: 'viewer', user: 'vic@acme.test' });
    const names = (await viewer.listTools(era)).map((t) => t.name);
    expect(names).toContain('kadu_tasks_list');
    expect(names).not.toContain('kadu_tasks_create');
    const res = await viewer.mcp(era, 'tools/call', { name: 'kadu_tasks_create', arguments: newTask('x') });
    expect(res.status).toBe(200);
    expect(res.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: kadu_tasks_create' });
  });

  it('an admin token without the write scope gets 403 insufficient_scope with a step-up challenge', async () => {
    const narrow = admin.as({ scopes: ['kadu.tasks.read'], user: 'narrow@acme.test' });
    expect((await narrow.listTools(era)).map((t) => t.name)).not.toContain('kadu_tasks_create');
    const res = await narrow.mcp(era, 'tools/call', { name: 'kadu_tasks_create', arguments: newTask('x') });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(res.headers['www-authenticate']).toContain('scope="kadu.tasks.write"');
  });
});
