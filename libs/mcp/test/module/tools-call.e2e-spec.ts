import request from 'supertest';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { RequestStamp } from '../fixtures/tools-app/request-stamp.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/** Issue 3: existing service methods called as tools, in both eras. */
let t: ToolsApp;

beforeAll(async () => {
  t = await startToolsApp();
});
afterAll(() => t.app.close());
beforeEach(() => t.notes.reset());

type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;
const ERAS: [string, Build][] = [
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
];

const mcp = (r: McpTestRequest, token = 'admin-token', extra: Record<string, string> = {}) =>
  request(t.server).post('/mcp').set(r.headers).set(extra).set('Authorization', `Bearer ${token}`).send(r.body);

const textOf = (result: Record<string, unknown>) => (result.content as { type: string; text: string }[])[0]!.text;

describe.each(ERAS)('tools/call, %s era', (era, build) => {
  const call = (name: string, args?: unknown, token?: string) =>
    mcp(build('tools/call', args === undefined ? { name } : { name, arguments: args }, { id: 'c' }), token);

  it('a DTO tool returns the same JSON as its REST route', async () => {
    const args = { text: 'Hi', times: 2, mode: 'upper' };
    const rest = await request(t.server).post('/echo').set('Authorization', 'Bearer admin-token').send(args);
    expect(rest.status).toBe(201);
    const result = expectRpcResult(await call('echo', args), 'c');
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: rest.text }]);
    expect(JSON.parse(textOf(result))).toEqual({ data: { text: 'HI HI', is_dto: true } });
    if (era === '2025') expect(result).not.toHaveProperty('resultType');
    else expect(result.resultType).toBe('complete');
  });

  it('an id + DTO tool maps task-style arguments onto the signature, principal from the guard', async () => {
    const result = expectRpcResult(
      await call('notes_update', { note_id: 'n1', title: 'Renamed', tags: [{ name: 'work' }] }),
      'c',
    );
    expect(JSON.parse(textOf(result))).toEqual({
      data: { id: 'n1', title: 'Renamed', tags: [{ name: 'work' }], updated_by: 'alice' },
    });
    const rest = await request(t.server)
      .patch('/notes/n2')
      .set('Authorization', 'Bearer admin-token')
      .send({ title: 'Renamed', tags: [{ name: 'work' }] });
    expect(rest.body).toEqual({ data: { id: 'n2', title: 'Renamed', tags: [{ name: 'work' }], updated_by: 'alice' } });
  });

  it('a principal given as an argument is refused, never used', async () => {
    const result = expectRpcResult(
      await call('notes_update', { note_id: 'n1', principal: { subject: 'mallory' } }),
      'c',
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('property principal should not exist');
  });

  it('a no-argument tool runs without arguments and with {}', async () => {
    expect(JSON.parse(textOf(expectRpcResult(await call('clock_now'), 'c')))).toEqual({
      data: { now: '2026-11-30T00:00:00.000Z' },
    });
    expect(expectRpcResult(await call('clock_now', {}), 'c').isError).toBeUndefined();
  });

  it('validation failures answer isError listing every message, as the REST route would', async () => {
    const args = { text: '', times: 9, mode: 'sideways', extra: 1 };
    const rest = await request(t.server).post('/echo').set('Authorization', 'Bearer admin-token').send(args);
    expect(rest.status).toBe(400);
    const result = expectRpcResult(await call('echo', args), 'c');
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual(rest.body);
    const messages = (rest.body as { error: { messages: string[] } }).error.messages;
    for (const fragment of [
      'extra should not exist',
      'text must be longer',
      'times must not be greater than 5',
      'mode must be one of',
    ]) {
      expect(
        messages.some((m) => m.includes(fragment)),
        fragment,
      ).toBe(true);
    }
  });

  it('nested DTOs are validated too', async () => {
    const result = expectRpcResult(
      await call('notes_update', { note_id: 'n1', tags: [{ name: 'UPPER' }], owner_email: 'nope' }),
      'c',
    );
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('tags.0.name must match');
    expect(text).toContain('owner_email must be an email');
  });

  it('a missing id argument is a validation error', async () => {
    const result = expectRpcResult(await call('notes_update', { title: 'x' }), 'c');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('note_id must be a string');
  });

  it('a 4xx HttpException becomes isError with the REST error body', async () => {
    const rest = await request(t.server)
      .patch('/notes/zzz')
      .set('Authorization', 'Bearer admin-token')
      .send({ title: 'x' });
    expect(rest.status).toBe(404);
    const result = expectRpcResult(await call('notes_update', { note_id: 'zzz', title: 'x' }), 'c');
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual(rest.body);
  });

  it('an unexpected failure becomes isError with a request id and no detail', async () => {
    const res = await call('boom', {});
    const result = expectRpcResult(res, 'c');
    expect(result.isError).toBe(true);
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('at ');
    expect(JSON.parse(textOf(result)).error).toMatchObject({ code: 'internal_error', request_id: expect.any(String) });
  });

  it('rich results pass through', async () => {
    const result = expectRpcResult(await call('picture', {}), 'c');
    expect(result.content).toHaveLength(3);
    expect(result.structuredContent).toEqual({ color: 'red' });
  });

  it('an unknown tool answers -32602', async () => {
    const res = await call('no_such', {});
    expectRpcError(res, 200, -32602, 'c');
    expect(res.body.error.message).toBe('Unknown tool: no_such');
  });

  it('a tool hidden by role answers exactly like an unknown tool', async () => {
    const res = await call('admin_report', {}, 'viewer-token');
    expectRpcError(res, 200, -32602, 'c');
    expect(res.body.error.message).toBe('Unknown tool: admin_report');
  });

  it('a tool hidden only by a missing scope answers 403 with a step-up challenge', async () => {
    const res = await call('notes_update', { note_id: 'n1' }, 'admin-readonly-token');
    expect(res.status).toBe(403);
    const challenge = res.headers['www-authenticate'] as string;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="notes.write"');
    expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"');
    expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'notes.write' });
    expect(t.notes.notes.get('n1')!.title).toBe('First');
  });

  it('a destructive tool does not run without the person: it answers an approval link', async () => {
    const result = expectRpcResult(await call('notes_delete', { note_id: 'n1' }), 'c');
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result)).error.code).toMatch(/^approval_(required|pending)$/);
    expect(t.notes.deleted).toEqual([]);
    expect(t.notes.notes.has('n1')).toBe(true);
  });

  it('params.payload stands in for absent arguments; arguments win when both are given', async () => {
    const viaPayload = expectRpcResult(
      await mcp(build('tools/call', { name: 'echo', payload: { text: 'from payload' } }, { id: 'c' })),
      'c',
    );
    expect(JSON.parse(textOf(viaPayload)).data.text).toBe('from payload');
    const both = expectRpcResult(
      await mcp(
        build(
          'tools/call',
          { name: 'echo', arguments: { text: 'from arguments' }, payload: { text: 'no' } },
          { id: 'c' },
        ),
      ),
      'c',
    );
    expect(JSON.parse(textOf(both)).data.text).toBe('from arguments');
  });

  it('arguments that are not an object answer -32602', async () => {
    expectRpcError(await call('echo', ['x']), 200, -32602, 'c');
  });

  it('request-scoped providers are resolved in the HTTP request sub-tree the guard used', async () => {
    const before = RequestStamp.created;
    const res = await call('request_stamp', {});
    const body = JSON.parse(textOf(expectRpcResult(res, 'c')));
    expect(body.data).toEqual({ id: res.headers['x-stamp'], path: '/mcp' });
    const second = await call('request_stamp', {});
    expect(JSON.parse(textOf(expectRpcResult(second, 'c'))).data.id).not.toBe(body.data.id);
    expect(RequestStamp.created - before).toBe(2);
  });

  it('the call context says which era', async () => {
    const body = JSON.parse(textOf(expectRpcResult(await call('admin_report', {}), 'c')));
    expect(body.data.era).toBe(era === '2025' ? 'legacy' : 'modern');
  });
});

describe('Mcp-Name on tools/call (2026)', () => {
  it('a mismatching Mcp-Name answers 400 -32020 and nothing runs', async () => {
    const r = modernRequest(
      'tools/call',
      { name: 'notes_update', arguments: { note_id: 'n1', title: 'x' } },
      { id: 1 },
    );
    const res = await mcp(r, 'admin-token', { 'Mcp-Name': 'echo' });
    expectRpcError(res, 400, -32020, 1);
    expect(t.notes.notes.get('n1')!.title).toBe('First');
  });
});

describe('rung 16: an unexpected failure inside the module', () => {
  it.each(ERAS)('%s: 500 with -32603, the id, and no internal detail', async (_era, build) => {
    const res = await mcp(build('tools/list', {}, { id: 'boom' }), 'admin-token', { 'X-Explode': '1' });
    expectRpcError(res, 500, -32603, 'boom');
    expect(res.text).not.toContain('secret');
    expect(res.body.error.message).toMatch(/request id/);
  });
});
