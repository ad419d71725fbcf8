import { McpEvents } from '@kobana/nest-mcp';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { uploadFile } from '../support/files.js';
import { awaitingReconcile } from '../support/executions.js';
import { ListenStream, type StreamMessage, SUB } from '@kobana/nest-mcp/testing';
import { STATUS, STEPS } from '../support/kadu-meta.js';

/**
 * Issue 21: subscriptions/listen on one Kadu process (embedded bus; the distributed pass runs it
 * on Redis): per-URI updates of an execution, authorization of what is followed, limits, expiry,
 * heartbeat. The multi-replica delivery is in test/replicas/listen.e2e-spec.ts.
 */
let kadu: KaduTestApp;
let admin: KaduClient;
let base: string;
const open: ListenStream[] = [];

beforeAll(async () => {
  kadu = await startKadu({
    KADU_LISTEN_MAX_STREAMS: '3',
    KADU_LISTEN_MAX_SUBSCRIPTIONS: '3',
    KADU_LISTEN_HEARTBEAT_MS: '200',
  });
  await kadu.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(kadu.server.address() as { port: number }).port}`;
  admin = new KaduClient(kadu);
}, 120_000);
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => kadu.close());

async function listen(
  token: string,
  notifications: Record<string, unknown>,
  id?: string | number,
): Promise<ListenStream> {
  const stream = await ListenStream.open(base, token, notifications, id);
  open.push(stream);
  return stream;
}

/** An execution of `reconcile` waiting for input (its first run asked a question). */
async function waitingExecution(): Promise<string> {
  const upload = (name: string, content: string) => uploadFile(kadu, admin, name, content);
  return (await awaitingReconcile(admin, upload, 'listen reconcile')).id;
}

const stepCount = async (id: string): Promise<number> =>
  (await admin.rest('get', `/api/v1/executions/${id}/steps`)).body.data.length;
const isUpdate = (uri: string) => (m: StreamMessage) =>
  m.method === 'notifications/resources/updated' && m.params.uri === uri;

describe('subscriptions/listen on Kadu', () => {
  it('discover advertises per-URI subscriptions only (no list ever changes)', async () => {
    const res = await admin.mcp('2026', 'server/discover');
    expect(res.body.result.capabilities).toEqual({
      tools: {},
      prompts: {},
      resources: { subscribe: true },
      completions: {},
      // Kadu also serves the Tasks extension (issue 19): kadu_tasks_run answers a task when asked;
      // and MCP Apps (issue 31): executions are shown in ui://kadu/execution.
      extensions: {
        'io.modelcontextprotocol/tasks': {},
        'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
      },
    });
  });

  it('follows an execution: acknowledged first, then every change in order, each tagged with the subscription id', async () => {
    const id = await waitingExecution();
    const uri = `kobana://kadu/executions/${id}`;
    const stepsBefore = await stepCount(id);
    const stream = await listen(
      await kadu.token(),
      { resourceSubscriptions: [uri, `${uri}/steps`], toolsListChanged: true },
      'follow-1',
    );
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const ack = await stream.next(() => true, 'the acknowledgement');
    // Honoured: the two URIs; toolsListChanged is not offered, so it is not acknowledged.
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: [uri, `${uri}/steps`] }, _meta: { [SUB]: 'follow-1' } },
    });

    expect(
      (await admin.rest('post', `/api/v1/executions/${id}/continue`, { answers: { decisions: { 1: 'L-2' } } })).status,
    ).toBe(202);
    await stream.next((m) => isUpdate(uri)(m) && m.params._meta[STATUS] === 'succeeded', 'the succeeded update');
    const stepsAfter = await stepCount(id);
    expect(stream.messages[0]).toBe(ack);
    for (const m of stream.messages) expect(m.params._meta[SUB]).toBe('follow-1');
    const updates = stream.messages.filter(isUpdate(uri)).map((m) => [m.params._meta[STATUS], m.params._meta[STEPS]]);
    const steps = Array.from({ length: stepsAfter - stepsBefore }, (_, i) => ['running', stepsBefore + 1 + i]);
    expect(updates).toEqual([['queued', undefined], ['running', undefined], ...steps, ['succeeded', undefined]]);
    const stepUpdates = stream.messages.filter(isUpdate(`${uri}/steps`)).map((m) => m.params._meta[STEPS]);
    expect(stepUpdates).toEqual(steps.map(([, n]) => n));
    expect(stream.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toEqual([]);
  });

  it("another organisation's execution is refused exactly like one that does not exist", async () => {
    const id = await waitingExecution();
    const other = await kadu.token({ org: 'globex', user: 'eve@globex.test', role: 'owner' });
    const foreign = await listen(other, { resourceSubscriptions: [`kobana://kadu/executions/${id}`] }, 'x');
    const missing = await listen(
      other,
      { resourceSubscriptions: ['kobana://kadu/executions/exe_00000000000000000000000000'] },
      'x',
    );
    expect(foreign.status).toBe(200);
    expect(foreign.contentType).toMatch(/^application\/json/);
    expect(foreign.refusal).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: {
        code: -32602,
        message: `Resource not found: kobana://kadu/executions/${id}`,
        data: { uri: `kobana://kadu/executions/${id}` },
      },
    });
    expect(missing.refusal?.error.code).toBe(-32602);
    expect(missing.refusal?.error.message).toBe(
      'Resource not found: kobana://kadu/executions/exe_00000000000000000000000000',
    );
  });

  it('delivers an event only to streams of its audience (the organisation)', async () => {
    const id = await waitingExecution();
    const uri = `kobana://kadu/executions/${id}`;
    const stream = await listen(await kadu.token(), { resourceSubscriptions: [uri] });
    await stream.next(() => true, 'the acknowledgement');
    const events = kadu.app.get(McpEvents);
    await events.resourceUpdated(uri, { audience: 'globex', meta: { mark: 'foreign' } });
    await events.resourceUpdated(uri, { meta: { mark: 'no audience' } });
    await events.resourceUpdated(uri, { audience: 'acme', meta: { mark: 'own' } });
    await stream.next((m) => m.params?._meta?.mark === 'own', 'the own event');
    expect(stream.messages.slice(1).map((m) => m.params._meta.mark)).toEqual(['no audience', 'own']);
  });

  it('malformed filters and too many URIs are refused with -32602 and the reason', async () => {
    const token = await kadu.token();
    const bad = await listen(token, { resourceSubscriptions: 'kobana://kadu/me' }, 'b');
    expect(bad.refusal).toMatchObject({
      id: 'b',
      error: {
        code: -32602,
        message:
          'Invalid params: "notifications.resourceSubscriptions" must be an array of non-empty strings (at most 2048 characters each)',
      },
    });
    const uris = ['kobana://kadu/me', 'kobana://kadu/usage', 'kobana://kadu/tasks', 'kobana://kadu/executions/exe_1'];
    const many = await listen(token, { resourceSubscriptions: uris }, 'm');
    expect(many.refusal).toEqual({
      jsonrpc: '2.0',
      id: 'm',
      error: {
        code: -32602,
        message: 'Invalid params: a stream may follow at most 3 resource URIs and task ids; this one asks for 4',
        data: { limit: 3, requested: 4 },
      },
    });
  });

  it('a member holds at most 3 open streams (the 429 for too many streams carries Retry-After); closing one frees its place', async () => {
    const token = await kadu.token({ user: 'many@acme.test' });
    const streams = [];
    for (let i = 0; i < 3; i++) {
      const s = await listen(token, { resourceSubscriptions: ['kobana://kadu/me'] });
      await s.next(() => true, `ack ${i}`);
      streams.push(s);
    }
    const refused = await listen(token, { resourceSubscriptions: ['kobana://kadu/me'] }, 'fourth');
    expect(refused.status).toBe(429);
    // As every 429 of the product: when to try again (the longest an ended stream holds its slot).
    expect(refused.retryAfter).toBe('5');
    expect(refused.refusal).toEqual({
      jsonrpc: '2.0',
      id: 'fourth',
      error: {
        code: -32600,
        message: 'Too many open subscription streams: at most 3 per caller; close one first',
        data: { limit: 3, retry_after: 5 },
      },
    });
    // Another member is not held to this one's count.
    const other = await listen(await kadu.token({ user: 'other@acme.test' }), {
      resourceSubscriptions: ['kobana://kadu/me'],
    });
    expect(other.status).toBe(200);
    streams[0]!.close();
    let again: ListenStream | undefined;
    for (let attempt = 0; attempt < 100 && again?.status !== 200; attempt++) {
      again = await listen(token, { resourceSubscriptions: ['kobana://kadu/me'] });
      if (again.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(again?.status).toBe(200);
  });

  it('keeps an idle stream alive with heartbeat comments', async () => {
    const stream = await listen(await kadu.token(), { resourceSubscriptions: ['kobana://kadu/me'] });
    await stream.next(() => true, 'the acknowledgement');
    for (let i = 0; i < 200 && stream.comments.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stream.comments.slice(0, 2)).toEqual([': keep-alive', ': keep-alive']);
    expect(stream.messages).toHaveLength(1);
  });

  it('ends the stream when the token expires, with the listen result', async () => {
    const stream = await listen(
      await kadu.token({ ttlSeconds: 2 }),
      { resourceSubscriptions: ['kobana://kadu/me'] },
      'short',
    );
    await stream.next(() => true, 'the acknowledgement');
    await stream.ended;
    expect(stream.messages.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 'short',
      result: { resultType: 'complete', _meta: { [SUB]: 'short' } },
    });
  });

  it('2025 era: subscriptions/listen is not a method, GET still answers 405', async () => {
    const res = await admin.mcp('2025', 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['kobana://kadu/me'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32601);
    const get = await fetch(`${base}/mcp`, {
      headers: { Authorization: `Bearer ${await kadu.token()}`, Accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });
});
