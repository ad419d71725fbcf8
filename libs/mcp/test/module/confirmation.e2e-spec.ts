import request from 'supertest';
import { RedisStateStore } from '@kobana/nest-mcp/redis';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { approvalPath, decide } from '../support/approvals.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';
import { redis, REDIS_URL, requires } from '../support/requirements.js';

/** Issue 6: nothing destructive runs until the person chooses to continue — and then exactly once. */
let t: ToolsApp;

beforeAll(async () => {
  t = await startToolsApp();
});
afterAll(() => t.app.close());
beforeEach(() => t.notes.reset());

const del = (noteId: string) => ({ name: 'notes_delete', arguments: { note_id: noteId } });
const modern = (
  params: Record<string, unknown>,
  capabilities: Record<string, unknown>,
  token = 'admin-token',
  server = t.server,
) => {
  const r = modernRequest('tools/call', params, {
    id: 'd',
    capabilities,
    clientInfo: { name: 'Claude Test', version: '1' },
  });
  return request(server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};
const legacy = (params: Record<string, unknown>, token = 'admin-token', server = t.server) => {
  const r = legacyRequest('tools/call', params, { id: 'd' });
  return request(server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};
const errorOf = (res: request.Response) => {
  const result = expectRpcResult(res, 'd');
  expect(result.isError).toBe(true);
  return JSON.parse((result.content as { text: string }[])[0]!.text).error;
};

describe('2026 with form elicitation: confirmation in the chat', () => {
  it('asks, runs once on accept, and a replayed retry does not run again', async () => {
    const ask = expectRpcResult(await modern(del('n1'), { elicitation: {} }), 'd');
    expect(ask.resultType).toBe('input_required');
    const request = (
      ask.inputRequests as Record<string, { method: string; params: { message: string; requestedSchema: object } }>
    ).confirm!;
    expect(request.method).toBe('elicitation/create');
    expect(request.params.message).toContain('Delete a note');
    expect(request.params.requestedSchema).toMatchObject({
      properties: { confirm: { type: 'boolean' } },
      required: ['confirm'],
    });
    expect(t.notes.deleted).toEqual([]);

    const retry = {
      ...del('n1'),
      requestState: ask.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    };
    const ran = expectRpcResult(await modern(retry, { elicitation: {} }), 'd');
    expect(ran.resultType).toBe('complete');
    expect(ran.isError).toBeUndefined();
    expect(t.notes.deleted).toEqual(['n1']);
    expectRpcError(await modern(retry, { elicitation: {} }), 200, -32602, 'd');
    expect(t.notes.deleted).toEqual(['n1']);
  });

  it.each([
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
    ['confirm: false', { action: 'accept', content: { confirm: false } }],
  ])('%s runs nothing', async (_what, answer) => {
    const ask = expectRpcResult(await modern(del('n2'), { elicitation: { form: {} } }), 'd');
    const res = await modern(
      { ...del('n2'), requestState: ask.requestState, inputResponses: { confirm: answer } },
      { elicitation: {} },
    );
    expect(errorOf(res).code).toBe('confirmation_declined');
    expect(t.notes.deleted).toEqual([]);
  });

  it("a state for other arguments or another person's state does not run", async () => {
    const ask = expectRpcResult(await modern(del('n1'), { elicitation: {} }), 'd');
    const yes = { confirm: { action: 'accept', content: { confirm: true } } };
    expectRpcError(
      await modern({ ...del('n2'), requestState: ask.requestState, inputResponses: yes }, { elicitation: {} }),
      200,
      -32602,
      'd',
    );
    expectRpcError(
      await modern(
        { ...del('n1'), requestState: ask.requestState, inputResponses: yes },
        { elicitation: {} },
        'admin2-token',
      ),
      200,
      -32602,
      'd',
    );
    expect(t.notes.deleted).toEqual([]);
  });

  it('answers without the state prove nothing: it asks again', async () => {
    const res = await modern(
      { ...del('n1'), inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } },
      { elicitation: {} },
    );
    expect(expectRpcResult(res, 'd').resultType).toBe('input_required');
    expect(t.notes.deleted).toEqual([]);
  });
});

describe.each([
  ['2025', (p: Record<string, unknown>, token?: string) => legacy(p, token)],
  ['2026 without elicitation', (p: Record<string, unknown>, token?: string) => modern(p, {}, token)],
])('%s: an approval link', (era, call) => {
  // Approvals live in the shared store across tests: each test uses its own note ids.
  let n1: string;
  let n2: string;
  beforeEach(() => {
    n1 = `${era}-${Math.random()}`;
    n2 = `${era}-${Math.random()}`;
  });

  it('approval → Continue → the retry runs once; the link cannot be used twice', async () => {
    const first = errorOf(await call(del(n1)));
    expect(first).toMatchObject({
      code: 'approval_required',
      approval_id: expect.any(String),
      approval_url: expect.stringMatching(/^http:\/\/localhost:3000\/mcp\/approvals\/[A-Za-z0-9_-]{40,}$/),
    });
    expect(Date.parse(first.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(first.message).toContain(first.approval_url);

    // Asking again while it is pending shows the same link again (a client may have lost it; the
    // person may have it open already).
    const pending = errorOf(await call(del(n1)));
    expect(pending).toMatchObject({
      code: 'approval_pending',
      approval_id: first.approval_id,
      approval_url: first.approval_url,
    });
    const link = pending.approval_url as string;
    const page = await request(t.server).get(approvalPath(link));
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Delete a note');
    expect(page.text).toContain('alice');
    // The arguments in words, the id marked as an id — not raw JSON.
    expect(page.text).toContain(`<dt>Note</dt><dd><span class="tag">id</span><code class="id">${n1}</code></dd>`);
    expect(page.text).not.toContain('&#34;note_id&#34;');
    expect(t.notes.deleted).toEqual([]);

    expect((await decide(t.server, link, 'approve')).status).toBe(200);
    expect(t.notes.deleted).toEqual([]);
    expect(errorOf(await call(del(n2))).code).toBe('approval_required');
    expect(errorOf(await call(del(n1), 'admin2-token')).code).toBe('approval_required');

    const ran = expectRpcResult(await call(del(n1)), 'd');
    expect(ran.isError).toBeUndefined();
    expect(t.notes.deleted).toEqual([n1]);
    expect(errorOf(await call(del(n1))).code).toBe('approval_required');
    expect(t.notes.deleted).toEqual([n1]);
    expect((await request(t.server).get(approvalPath(link))).status).toBe(409);
  });

  it('Cancel: the retry answers approval_rejected and nothing runs', async () => {
    const first = errorOf(await call(del(n2)));
    expect((await decide(t.server, first.approval_url, 'reject')).text).toContain('will not run');
    expect(errorOf(await call(del(n2))).code).toBe('approval_rejected');
    expect(t.notes.deleted).toEqual([]);
  });

  it('an expired link says so (410) and its buttons change nothing', async () => {
    const first = errorOf(await call(del(n1)));
    const page = await request(t.server).get(approvalPath(first.approval_url));
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const realNow = Date.now;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
    try {
      const expired = await request(t.server).get(approvalPath(first.approval_url));
      expect(expired.status).toBe(410);
      expect(expired.text).toContain('This link has expired');
      const pressed = await request(t.server)
        .post(approvalPath(first.approval_url))
        .type('form')
        .send({ csrf, decision: 'approve' });
      expect(pressed.status).toBe(410);
      expect(errorOf(await call(del(n1))).code).toBe('approval_required');
    } finally {
      spy.mockRestore();
    }
    expect(t.notes.deleted).toEqual([]);
  });

  it('an expired approval is replaced by a fresh one, and never runs', async () => {
    const first = errorOf(await call(del(n2)));
    const approved = await decide(t.server, first.approval_url, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('Approved');
    const realNow = Date.now;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
    try {
      const again = errorOf(await call(del(n2)));
      expect(again.code).toBe('approval_required');
      expect(again.approval_id).not.toBe(first.approval_id);
    } finally {
      spy.mockRestore();
    }
    expect(t.notes.deleted).toEqual([]);
  });
});

describe('the approval page', () => {
  it('GET changes nothing and a cross-site POST without the token is refused', async () => {
    const first = errorOf(await legacy(del('page-n1')));
    for (let i = 0; i < 3; i++)
      expect((await request(t.server).get(approvalPath(first.approval_url))).status).toBe(200);
    const pending = errorOf(await legacy(del('page-n1')));
    expect(pending.code).toBe('approval_pending');
    const forged = await request(t.server)
      .post(approvalPath(pending.approval_url))
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ decision: 'approve' });
    expect(forged.status).toBe(403);
    const wrong = await request(t.server)
      .post(approvalPath(pending.approval_url))
      .type('form')
      .send({ decision: 'approve', csrf: 'x'.repeat(32) });
    expect(wrong.status).toBe(403);
    expect(errorOf(await legacy(del('page-n1'))).code).toBe('approval_pending');
    expect((await request(t.server).get('/mcp/approvals/not-a-real-secret-at-all-0000000')).status).toBe(404);
  });
});

describe('2026 with URL elicitation only', () => {
  it('gets the approval link as a URL elicitation; the retry after Continue runs once', async () => {
    const ask = expectRpcResult(await modern(del('n1'), { elicitation: { url: {} } }), 'd');
    const approval = (ask.inputRequests as Record<string, { params: { mode: string; url: string; message: string } }>)
      .approval!;
    expect(approval.params).toMatchObject({ mode: 'url', url: expect.stringMatching(/\/mcp\/approvals\//) });
    const pending = expectRpcResult(
      await modern(
        { ...del('n1'), requestState: ask.requestState, inputResponses: { approval: { action: 'accept' } } },
        { elicitation: { url: {} } },
      ),
      'd',
    );
    expect(pending.resultType).toBe('input_required');
    await decide(t.server, approval.params.url, 'approve');
    const ran = expectRpcResult(
      await modern(
        { ...del('n1'), requestState: pending.requestState, inputResponses: { approval: { action: 'accept' } } },
        { elicitation: { url: {} } },
      ),
      'd',
    );
    expect(ran.isError).toBeUndefined();
    expect(t.notes.deleted).toEqual(['n1']);
  });
});

requires(await redis()).describe('two app instances sharing Redis and the state key', () => {
  it('a confirmation given on one instance is honoured by the other, once', async () => {
    const url = REDIS_URL;
    const prefix = `t:${Date.now()}:${Math.random()}:`;
    const a = await startToolsApp({ stateStore: new RedisStateStore(url, prefix), stateKey: 'shared-secret' });
    const b = await startToolsApp({ stateStore: new RedisStateStore(url, prefix), stateKey: 'shared-secret' });
    try {
      const first = errorOf(await legacy(del('n1'), 'admin-token', a.server));
      await decide(b.server, first.approval_url, 'approve');
      expect(expectRpcResult(await legacy(del('n1'), 'admin-token', b.server), 'd').isError).toBeUndefined();
      expect(b.notes.deleted).toEqual(['n1']);
      expect(errorOf(await legacy(del('n1'), 'admin-token', a.server)).code).toBe('approval_required');
      expect(a.notes.deleted).toEqual([]);

      const ask = expectRpcResult(await modern(del('n2'), { elicitation: {} }, 'admin-token', a.server), 'd');
      const retry = {
        ...del('n2'),
        requestState: ask.requestState,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      };
      expect(
        expectRpcResult(await modern(retry, { elicitation: {} }, 'admin-token', b.server), 'd').isError,
      ).toBeUndefined();
      expectRpcError(await modern(retry, { elicitation: {} }, 'admin-token', a.server), 200, -32602, 'd');
      expect([...a.notes.deleted, ...b.notes.deleted]).toEqual(['n1', 'n2']);
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });

  it('a retry while an approval is pending re-shows the same link on the other instance; the page opened on one is approved there', async () => {
    const url = REDIS_URL;
    const prefix = `t:${Date.now()}:${Math.random()}:`;
    const a = await startToolsApp({ stateStore: new RedisStateStore(url, prefix), stateKey: 'shared-secret' });
    const b = await startToolsApp({ stateStore: new RedisStateStore(url, prefix), stateKey: 'shared-secret' });
    try {
      const first = errorOf(await legacy(del('n1'), 'admin-token', a.server));
      const opened = await request(a.server).get(approvalPath(first.approval_url));
      const csrf = /name="csrf" value="([^"]+)"/.exec(opened.text)![1];
      for (const server of [b.server, a.server]) {
        const again = errorOf(await legacy(del('n1'), 'admin-token', server));
        expect(again).toMatchObject({ code: 'approval_pending', approval_url: first.approval_url });
      }
      const pressed = await request(a.server)
        .post(approvalPath(first.approval_url))
        .type('form')
        .send({ csrf, decision: 'approve' });
      expect(pressed.text).toContain('<h1>Approved</h1>');
      expect(expectRpcResult(await legacy(del('n1'), 'admin-token', b.server), 'd').isError).toBeUndefined();
      expect(errorOf(await legacy(del('n1'), 'admin-token', a.server)).code).toBe('approval_required');
      expect([...a.notes.deleted, ...b.notes.deleted]).toEqual(['n1']);
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });
});
