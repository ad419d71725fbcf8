import { createHash } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { RemoteClient } from '../support/remote-client.js';
import { type Replica, ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';
import { awaitingReconcile } from '../support/executions.js';
import { ListenStream, SUB } from '@kobana/nest-mcp/testing';
import { STATUS, STEPS } from '../support/kadu-meta.js';

/**
 * Issue 21: a client listens on replica A while the execution runs on replica B (A only queues:
 * KADU_EXECUTION_CONCURRENCY=0), so every update crosses the Redis event bus. Then SIGTERM on A
 * ends its open stream with the listen result, within the shutdown bound.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;
let worker: Replica;
let listener: Replica;

shared.describe('replicas: subscriptions/listen', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    set = await ReplicaSet.start({ count: 1, s3 });
    worker = set.replicas[0]!;
    listener = await set.add({ KADU_EXECUTION_CONCURRENCY: '0' });
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
  });

  async function member(): Promise<RemoteClient> {
    return new RemoteClient(worker.url, await set.token(), await set.token({ audience: 'api' }));
  }

  async function upload(client: RemoteClient, name: string, text: string): Promise<string> {
    const bytes = Buffer.from(text);
    const created = await client.rest('post', '/api/v1/files', {
      name,
      content_type: 'text/csv',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(
      (
        await fetch(created.body.data.upload_url, {
          method: 'PUT',
          headers: { 'Content-Type': 'text/csv' },
          body: bytes,
        })
      ).status,
    ).toBe(200);
    expect((await client.rest('post', `/api/v1/files/${created.body.data.file.id}/confirm`)).status).toBe(200);
    return created.body.data.file.id;
  }

  /** A reconcile execution waiting for input after its first run (on the worker replica). */
  async function waitingExecution(client: RemoteClient): Promise<string> {
    const waiting = await awaitingReconcile(
      client,
      (name, content) => upload(client, name, content),
      'listen across replicas',
    );
    return waiting.id;
  }

  it('the official client v2 listening on replica A receives, in order, the updates of an execution run by replica B', async () => {
    const client = await member();
    const id = await waitingExecution(client);
    const uri = `kobana://kadu/executions/${id}`;
    const stepsBefore = (await client.rest('get', `/api/v1/executions/${id}/steps`)).body.data.length;

    const v2 = new ClientV2({ name: 'listen-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const token = await set.token();
    await v2.connect(
      new TransportV2(new URL(`${listener.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const updates: { uri: string; _meta?: Record<string, unknown> }[] = [];
    v2.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params as (typeof updates)[number]);
    });
    try {
      expect(v2.getServerCapabilities()?.resources).toEqual({ subscribe: true });
      const subscription = await v2.listen({ resourceSubscriptions: [uri] });
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });

      // Answered on B; B's worker runs it; A hears it through Redis.
      expect(
        (await client.rest('post', `/api/v1/executions/${id}/continue`, { answers: { decisions: { 1: 'L-2' } } }))
          .status,
      ).toBe(202);
      const done = await client.waitForExecution(id);
      expect(done.status).toBe('succeeded');
      for (let i = 0; i < 400 && updates.at(-1)?._meta?.[STATUS] !== 'succeeded'; i++)
        await new Promise((r) => setTimeout(r, 50));
      const stepsAfter = (await client.rest('get', `/api/v1/executions/${id}/steps`)).body.data.length;
      const steps = Array.from({ length: stepsAfter - stepsBefore }, (_, i) => ['running', stepsBefore + 1 + i]);
      expect(updates.map((u) => [u._meta?.[STATUS], u._meta?.[STEPS]])).toEqual([
        ['queued', undefined],
        ['running', undefined],
        ...steps,
        ['succeeded', undefined],
      ]);
      for (const u of updates) expect(u.uri).toBe(uri);
      for (const u of updates) expect(u._meta?.[SUB]).toBeDefined();

      await subscription.close();
      expect(await subscription.closed).toBe('local');
    } finally {
      await v2.close();
    }
  });

  it("a stream following a task id on replica A hears the task's status changes made by replica B, in order", async () => {
    const client = await member();
    const bank = await upload(client, 'bank.csv', 'date,description,amount\n2026-11-02,ACME,-150.00\n');
    const ledger = await upload(
      client,
      'ledger.csv',
      'id,date,description,amount\nL-1,2026-11-02,ACME inv 1,-150\nL-2,2026-11-02,ACME inv 2,-150\n',
    );
    const task = (await client.rest('post', '/api/v1/tasks', { name: 'task on A', kind: 'reconcile', cost_cap: 50 }))
      .body.data.id;
    // kadu_tasks_run as a task (on B), confirmed in the chat.
    const withTasks = { capabilities: { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const args = { task_id: task, input_file_ids: [bank, ledger] };
    const ask = (await client.mcp('2026', 'tools/call', { name: 'kadu_tasks_run', arguments: args }, withTasks)).body
      .result;
    const confirm = { confirm: { action: 'accept', content: { confirm: true } } };
    const { taskId } = (
      await client.mcp(
        '2026',
        'tools/call',
        { name: 'kadu_tasks_run', arguments: args, requestState: ask.requestState, inputResponses: confirm },
        withTasks,
      )
    ).body.result;
    const [{ id }] = (await client.rest('get', `/api/v1/executions?task_id=${task}`)).body.data;
    await client.waitForExecution(id, (e) => e.status === 'awaiting_input');

    const stream = await ListenStream.open(listener.url, await set.token(), { taskIds: [taskId] }, 'task-on-a');
    try {
      expect((await stream.next(() => true, 'the acknowledgement')).params.notifications).toEqual({
        taskIds: [taskId],
      });
      // Answered on B; B's worker runs it; A hears the task's changes through Redis.
      expect(
        (await client.rest('post', `/api/v1/executions/${id}/continue`, { answers: { decisions: { 1: 'L-2' } } }))
          .status,
      ).toBe(202);
      const done = await stream.next(
        (m) => m.method === 'notifications/tasks' && m.params.status === 'completed',
        'completed',
      );
      expect(done.params).toMatchObject({ taskId, statusMessage: expect.stringMatching(/^Succeeded after/) });
      const phases = stream.messages
        .filter((m) => m.method === 'notifications/tasks')
        .map((m) => `${m.params.status}:${String(m.params.statusMessage).split(/[; ]/)[0]}`)
        .filter((phase, i, all) => phase !== all[i - 1]);
      expect(phases).toEqual(['working:Queued', 'working:Running', 'completed:Succeeded']);
      for (const m of stream.messages.slice(1)) expect(m.params._meta[SUB]).toBe('task-on-a');
    } finally {
      stream.close();
    }
  });

  it('SIGTERM on the replica ends its open stream with the listen result, and the process stops cleanly', async () => {
    const stream = await ListenStream.open(
      listener.url,
      await set.token(),
      { resourceSubscriptions: ['kobana://kadu/me'] },
      'to-stop',
    );
    await stream.next(() => true, 'the acknowledgement');
    // The default bound is 10 s; stop() would SIGKILL after 15 s, which the exit code would tell.
    await listener.stop(15_000);
    await stream.ended;
    expect(stream.messages.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 'to-stop',
      result: { resultType: 'complete', _meta: { [SUB]: 'to-stop' } },
    });
    expect(listener.process?.exitCode).toBe(0);
  });
});
