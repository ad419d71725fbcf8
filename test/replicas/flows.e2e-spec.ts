import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 14: three replicas (separate data folders) behind a round-robin balancer, on the real
 * PostgreSQL, Redis and an S3-compatible store. Every flow whose steps land on different replicas
 * works as on one; nothing depends on having hit the same replica before.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;

shared.describe('replicas: flows', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    // A tight write budget for one member (the shared-limit test); the other tests stay far below it.
    set = await ReplicaSet.start({ count: 3, s3, env: { KADU_RATE_WRITES: '12/60' } });
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
  });

  async function member(user: string): Promise<RemoteClient> {
    return new RemoteClient(set.url, await set.token({ user }), await set.token({ user, audience: 'api' }));
  }

  const replicaUrls = () => set.replicas.map((r) => r.url);

  it('2026 client (official v2): discover then list and call, its requests spread over every replica', async () => {
    const before = new Map(set.replicas.map((r) => [r.name, set.balancer.served(r.name)]));
    const client = new ClientV2({ name: 'replicas-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const token = await set.token({ user: 'v2@acme.test' });
    await client.connect(
      new TransportV2(new URL(`${set.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('kadu_me_get');
      for (let i = 0; i < 3; i++) {
        const me = await client.callTool({ name: 'kadu_me_get', arguments: {} });
        expect(JSON.parse((me.content as { text: string }[])[0]!.text).data.member.email).toBe('v2@acme.test');
      }
    } finally {
      await client.close();
    }
    for (const r of set.replicas) expect(set.balancer.served(r.name)).toBeGreaterThan(before.get(r.name)!);
  });

  it('2025 client (official v1): initialize, list and call land on different replicas and still agree', async () => {
    const client = new ClientV1({ name: 'replicas-v1', version: '1.0.0' });
    const token = await set.token({ user: 'v1@acme.test' });
    await client.connect(
      new TransportV1(new URL(`${set.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'kadu' });
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      const created = await client.callTool({
        name: 'kadu_tasks_create',
        arguments: { name: 'From v1', kind: 'echo', cost_cap: 3 },
      });
      const task = JSON.parse((created.content as { text: string }[])[0]!.text).data;
      const got = await client.callTool({ name: 'kadu_tasks_get', arguments: { task_id: task.id } });
      expect(JSON.parse((got.content as { text: string }[])[0]!.text).data).toMatchObject({
        id: task.id,
        name: 'From v1',
      });
    } finally {
      await client.close();
    }
  });

  it('cursors sealed on one replica open on the others (REST and MCP)', async () => {
    const client = await member('pager@acme.test');
    const names = ['p1', 'p2', 'p3', 'p4'];
    for (const name of names)
      expect((await client.rest('post', '/api/v1/tasks', { name, kind: 'echo', cost_cap: 1 })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 4; page++) {
      // Each page from the next replica in turn, with the cursor the previous one sealed.
      const at = client.at(replicaUrls()[page % 3]!);
      const res = await at.rest('get', `/api/v1/tasks?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((t: { name: string }) => t.name));
      cursor = res.body.meta.next_cursor;
    }
    expect(seen.filter((n) => names.includes(n)).sort()).toEqual(names);

    const first = await client.at(replicaUrls()[0]!).tool('2026', 'kadu_tasks_list', { limit: 2 });
    const second = await client
      .at(replicaUrls()[1]!)
      .tool('2026', 'kadu_tasks_list', { limit: 2, cursor: first.body.meta.next_cursor });
    expect(second.isError).toBe(false);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.data[0].id < first.body.data[1].id).toBe(true);
  });

  it('approval link: issued on one replica, opened and approved on another, the retry on a third runs once', async () => {
    const client = await member('approver@acme.test');
    const [one, two, three] = replicaUrls() as [string, string, string];
    const task = (
      await client.rest('post', '/api/v1/tasks', { name: 'Approved across replicas', kind: 'echo', cost_cap: 2 })
    ).body.data;
    const asked = await client.at(one).tool('2025', 'kadu_tasks_run', { task_id: task.id, input: {} });
    expect(asked.body.error.code).toBe('approval_required');
    const link = new URL(asked.body.error.approval_url as string);
    expect(link.origin).toBe(set.url);

    const page = await fetch(`${two}${link.pathname}`);
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    const decided = await fetch(`${two}${link.pathname}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrf!, decision: 'approve' }),
    });
    expect(decided.status).toBe(200);

    const ran = await client.at(three).tool('2025', 'kadu_tasks_run', { task_id: task.id, input: {} });
    expect(ran.isError).toBe(false);
    expect(ran.body.data.status).toBe('queued');
    const again = await client.at(one).tool('2025', 'kadu_tasks_run', { task_id: task.id, input: {} });
    expect(again.body.error.code).toBe('approval_required');
    expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toHaveLength(1);
  });

  it('a retry while an approval is pending re-shows the same link on every replica; the page opened before is approved, and the call runs once', async () => {
    const client = await member('patient@acme.test');
    const [one, two, three] = replicaUrls() as [string, string, string];
    const task = (
      await client.rest('post', '/api/v1/tasks', { name: 'Retried across replicas', kind: 'echo', cost_cap: 2 })
    ).body.data;
    const args = { task_id: task.id, input: {} };
    const asked = await client.at(one).tool('2025', 'kadu_tasks_run', args);
    expect(asked.body.error.code).toBe('approval_required');
    const link = new URL(asked.body.error.approval_url as string);
    // The person opens the page (on one replica) before the model retries (on the others).
    const page = await fetch(`${two}${link.pathname}`);
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    for (const [url, era] of [
      [three, '2025'],
      [one, '2026'],
    ] as const) {
      const retry = await client.at(url).tool(era, 'kadu_tasks_run', args);
      expect(retry.body.error).toMatchObject({
        code: 'approval_pending',
        approval_url: link.href,
        approval_id: asked.body.error.approval_id,
      });
    }
    const decided = await fetch(`${three}${link.pathname}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrf!, decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('<h1>Approved</h1>');
    const ran = await client.at(two).tool('2025', 'kadu_tasks_run', args);
    expect(ran.body.data.status).toBe('queued');
    expect((await client.at(one).tool('2025', 'kadu_tasks_run', args)).body.error.code).toBe('approval_required');
    expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toHaveLength(1);
  });

  it('a new secret rotation cancels every earlier unused entry link, whichever replica made or serves it; three rotations at once leave one live link', async () => {
    const client = await member('keys@acme.test');
    const [one, two, three] = replicaUrls() as [string, string, string];
    const save = (url: string, path: string, value: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ value }),
      });
    const created = await client.at(one).rest('post', '/api/v1/secrets', { name: 'REPLICATED_KEY' });
    expect(created.status).toBe(201);
    const id = created.body.data.secret.id as string;
    const rotate = async (url: string) =>
      new URL((await client.at(url).rest('post', `/api/v1/secrets/${id}/rotate`)).body.data.entry_url as string)
        .pathname;
    const first = new URL(created.body.data.entry_url as string).pathname;
    const second = await rotate(two);
    // Made on one replica, canceled by a rotation on another, refused on a third.
    expect((await save(three, first, 'from-the-first-link')).status).toBe(410);

    // One rotation on each replica at the same moment: the secret's row lock orders them, each
    // cancels the links before it, and exactly one link is left that works.
    const racing = await Promise.all(replicaUrls().map(rotate));
    const links = [first, second, ...racing];
    const statuses = await Promise.all(
      links.map(async (path, i) => (await fetch(`${replicaUrls()[i % 3]}${path}`)).status),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(links.length - 1);
    const live = links[statuses.indexOf(200)]!;
    expect((await save(two, live, 'from-the-live-link')).status).toBe(200);
    for (const path of links.filter((l) => l !== live))
      expect((await save(one, path, 'from-an-old-link')).status).toBe(410);
    expect((await client.at(three).rest('get', `/api/v1/secrets/${id}`)).body.data.version).toBe(1);
  });

  it('requestState sealed on one replica is accepted once on another, and refused on a third', async () => {
    const client = await member('elicited@acme.test');
    const [one, two, three] = replicaUrls() as [string, string, string];
    const task = (
      await client.rest('post', '/api/v1/tasks', { name: 'Confirmed across replicas', kind: 'echo', cost_cap: 2 })
    ).body.data;
    const args = { name: 'kadu_tasks_run', arguments: { task_id: task.id, input: {} } };
    const form = { capabilities: { elicitation: {} } };
    const ask = (await client.at(one).mcp('2026', 'tools/call', args, form)).body.result;
    expect(ask.resultType).toBe('input_required');
    const retry = {
      ...args,
      requestState: ask.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    };
    const ran = await client.at(two).mcp('2026', 'tools/call', retry, form);
    expect(JSON.parse(ran.body.result.content[0].text).data).toMatchObject({ status: 'queued', task_id: task.id });
    const replay = await client.at(three).mcp('2026', 'tools/call', retry, { ...form, id: 'replayed' });
    expect(replay.body).toMatchObject({
      id: 'replayed',
      error: { code: -32602, message: 'Invalid or expired requestState' },
    });
    expect((await client.rest('get', `/api/v1/executions?task_id=${task.id}`)).body.data).toHaveLength(1);
  });

  it('Tasks extension: confirmed on one replica, the task made on another is polled on every replica until it completes', async () => {
    const client = await member('tasks@acme.test');
    const [one, two, three] = replicaUrls() as [string, string, string];
    const task = (
      await client.rest('post', '/api/v1/tasks', { name: 'A task across replicas', kind: 'echo', cost_cap: 2 })
    ).body.data;
    const args = { name: 'kadu_tasks_run', arguments: { task_id: task.id, input: { n: 7 } } };
    const caps = { capabilities: { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const ask = (await client.at(one).mcp('2026', 'tools/call', args, caps)).body.result;
    expect(ask.resultType).toBe('input_required');
    const retry = {
      ...args,
      requestState: ask.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    };
    const created = (await client.at(two).mcp('2026', 'tools/call', retry, caps)).body.result;
    expect(created).toMatchObject({ resultType: 'task', ttlMs: null });
    // Durable before the answer: a replica that did not make it finds it at once.
    expect((await client.at(three).mcp('2026', 'tasks/get', { taskId: created.taskId }, caps)).body.result.taskId).toBe(
      created.taskId,
    );
    const deadline = Date.now() + 30_000;
    let seen: Record<string, any> = {};
    for (let i = 0; seen.status !== 'completed' && Date.now() < deadline; i++) {
      seen = (await client.at(replicaUrls()[i % 3]!).mcp('2026', 'tasks/get', { taskId: created.taskId }, caps)).body
        .result;
      if (seen.status !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.status).toBe('completed');
    expect(JSON.parse(seen.result.content[0].text).data).toMatchObject({ status: 'succeeded', output: { n: 7 } });
    for (const url of replicaUrls())
      expect((await client.at(url).mcp('2026', 'tasks/get', { taskId: created.taskId }, caps)).body.result).toEqual({
        ...seen,
        _meta: expect.any(Object),
      });
  });

  it('executions queued on one replica are run by whichever worker takes them and read the same everywhere', async () => {
    const client = await member('runner@acme.test');
    const task = (await client.rest('post', '/api/v1/tasks', { name: 'Echo everywhere', kind: 'echo', cost_cap: 2 }))
      .body.data;
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await client.at(replicaUrls()[i]!).rest('post', `/api/v1/tasks/${task.id}/run`, { input: { n: i } });
      expect(run.status).toBe(202);
      ids.push(run.body.data.id);
    }
    for (const [i, id] of ids.entries())
      expect(await client.waitForExecution(id)).toMatchObject({ status: 'succeeded', output: { n: i } });
    for (const url of replicaUrls()) {
      for (const id of ids)
        expect((await client.at(url).rest('get', `/api/v1/executions/${id}`)).body.data.status).toBe('succeeded');
    }
  });

  it('one write budget for a member, whichever replica each write lands on', async () => {
    const client = await member('budget@acme.test');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await client.rest('post', '/api/v1/tasks', { name: `b${i}`, kind: 'echo', cost_cap: 1 })).status);
    expect(statuses).toEqual(Array(12).fill(201));
    for (const url of replicaUrls()) {
      const refused = await client.at(url).rest('post', '/api/v1/tasks', { name: 'over', kind: 'echo', cost_cap: 1 });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body.errors[0].code).toBe('rate_limited');
    }
  });
});
