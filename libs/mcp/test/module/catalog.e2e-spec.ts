import request from 'supertest';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { expectRpcError, expectRpcResult, SERVER_INFO_KEY } from '../support/wire.js';

/** Issue 5 in the module: resources, templates, prompts and completions of a non-Kadu app. */
let t: ToolsApp;

beforeAll(async () => {
  t = await startToolsApp();
});
afterAll(() => t.app.close());

type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;
const ERAS: [string, Build][] = [
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
];

describe.each(ERAS)('%s era', (era, build) => {
  const send = (method: string, params: Record<string, unknown> = {}, token = 'admin-token') => {
    const r = build(method, params, { id: 'x' });
    return request(t.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
  };

  async function all(method: string, key: string, token = 'admin-token'): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const result = expectRpcResult(await send(method, cursor ? { cursor } : {}, token), 'x');
      items.push(...(result[key] as Record<string, unknown>[]));
      cursor = result.nextCursor as string | undefined;
      if (era === '2025') expect(result).not.toHaveProperty('ttlMs');
      else
        expect(result).toMatchObject({
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
          _meta: { [SERVER_INFO_KEY]: expect.any(Object) },
        });
    } while (cursor);
    return items;
  }

  it('resources/list pages the visible fixed resources', async () => {
    const admin = await all('resources/list', 'resources');
    expect(admin.map((r) => r.uri)).toEqual([
      'test://readme',
      'test://logo.png',
      'test://secret-report',
      'test://write-log',
    ]);
    expect(admin[0]).toEqual({
      uri: 'test://readme',
      name: 'readme',
      title: 'Readme',
      description: 'Plain text.',
      mimeType: 'text/plain',
    });
    const viewer = await all('resources/list', 'resources', 'viewer-token');
    expect(viewer.map((r) => r.uri)).toEqual(['test://readme', 'test://logo.png']);
  });

  it('resources/templates/list lists the template', async () => {
    expect(await all('resources/templates/list', 'resourceTemplates')).toEqual([
      { uriTemplate: 'test://notes/{id}', name: 'note', description: 'One note.', mimeType: 'application/json' },
    ]);
  });

  it('reads text, blob and template resources', async () => {
    const text = expectRpcResult(await send('resources/read', { uri: 'test://readme' }), 'x');
    expect(text.contents).toEqual([{ uri: 'test://readme', mimeType: 'text/plain', text: 'Hello from the readme' }]);
    if (era !== '2025') expect(text).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const blob = expectRpcResult(await send('resources/read', { uri: 'test://logo.png' }), 'x');
    expect(blob.contents).toEqual([{ uri: 'test://logo.png', mimeType: 'image/png', blob: 'iVBORw==' }]);
    const note = expectRpcResult(await send('resources/read', { uri: 'test://notes/n2' }), 'x');
    expect(note.contents).toEqual([
      { uri: 'test://notes/n2', mimeType: 'application/json', text: '{"data":{"id":"n2","text":"Second note"}}' },
    ]);
  });

  it.each(['test://notes/zz', 'test://nothing', 'test://notes/a%2Fb', 'test://notes/', 'test://secret-report'])(
    'a resource that does not exist (or is hidden) answers -32602 with data.uri: %s',
    async (uri) => {
      const res = await send('resources/read', { uri }, 'viewer-token');
      expectRpcError(res, 200, -32602, 'x');
      expect(res.body.error.data).toEqual({ uri });
    },
  );

  it('a resource hidden only by scope answers 403 with a challenge', async () => {
    const res = await send('resources/read', { uri: 'test://write-log' }, 'admin-readonly-token');
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain('scope="notes.write"');
  });

  it('prompts/list and prompts/get with and without arguments', async () => {
    const prompts = await all('prompts/list', 'prompts');
    expect(prompts.map((p) => p.name)).toEqual(['summarize_note', 'greeting', 'pick_number', 'personal_prompt']);
    expect(prompts[0]).toMatchObject({
      arguments: [
        { name: 'note_id', required: true },
        { name: 'style', required: false },
      ],
    });
    const got = expectRpcResult(
      await send('prompts/get', { name: 'summarize_note', arguments: { note_id: 'n1', style: 'long' } }),
      'x',
    );
    expect(got).toMatchObject({
      description: 'Summary of n1',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize (long): First note' } }],
    });
    const plain = expectRpcResult(await send('prompts/get', { name: 'greeting' }), 'x');
    expect(plain.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello.' } }]);
  });

  it.each([
    ['unknown prompt', { name: 'nope' }, /Unknown prompt/],
    ['missing required argument', { name: 'summarize_note', arguments: {} }, /note_id/],
    ['argument outside its enum', { name: 'summarize_note', arguments: { note_id: 'n1', style: 'weird' } }, /style/],
    ['non-string argument', { name: 'summarize_note', arguments: { note_id: 5 } }, /strings/],
    ['a 404 from the method', { name: 'summarize_note', arguments: { note_id: 'zz' } }, /No note zz/],
  ])('prompts/get: %s answers -32602', async (_what, params, message) => {
    const res = await send('prompts/get', params);
    expectRpcError(res, 200, -32602, 'x');
    expect(res.body.error.message).toMatch(message);
  });

  it('completion/complete: provider by prefix, enums, at most 100 values with total and hasMore', async () => {
    const ids = expectRpcResult(
      await send('completion/complete', {
        ref: { type: 'ref/resource', uri: 'test://notes/{id}' },
        argument: { name: 'id', value: 'n' },
      }),
      'x',
    );
    expect(ids).toMatchObject({ completion: { values: ['n1', 'n2'], total: 2, hasMore: false } });
    const styles = expectRpcResult(
      await send('completion/complete', {
        ref: { type: 'ref/prompt', name: 'summarize_note' },
        argument: { name: 'style', value: 'sh' },
      }),
      'x',
    );
    expect(styles).toMatchObject({ completion: { values: ['short', 'shouty'], total: 2, hasMore: false } });
    const many = expectRpcResult(
      await send('completion/complete', {
        ref: { type: 'ref/prompt', name: 'pick_number' },
        argument: { name: 'n', value: '' },
      }),
      'x',
    );
    expect((many.completion as { values: string[] }).values).toHaveLength(100);
    expect(many.completion).toMatchObject({ total: 150, hasMore: true });
    if (era === '2025') expect(many).not.toHaveProperty('resultType');
  });

  it.each([
    [{ type: 'ref/prompt', name: 'nope' }, 'x'],
    [{ type: 'ref/resource', uri: 'test://other/{id}' }, 'id'],
    [{ type: 'ref/prompt', name: 'summarize_note' }, 'unknown_arg'],
    [{ type: 'ref/tool', name: 'echo' }, 'x'],
  ])('completion/complete with an unknown reference %j answers -32602', async (ref, name) => {
    expectRpcError(await send('completion/complete', { ref, argument: { name, value: '' } }), 200, -32602, 'x');
  });
});

describe('Mcp-Name for resources/read and prompts/get (2026)', () => {
  it.each([
    ['resources/read', { uri: 'test://readme' }],
    ['prompts/get', { name: 'greeting' }],
  ])('%s: a matching Mcp-Name passes, another one answers 400 -32020', async (method, params) => {
    const r = modernRequest(method, params, { id: 1 });
    const ok = await request(t.server)
      .post('/mcp')
      .set(r.headers)
      .set('Authorization', 'Bearer admin-token')
      .send(r.body);
    expectRpcResult(ok, 1);
    const bad = await request(t.server)
      .post('/mcp')
      .set(r.headers)
      .set('Mcp-Name', 'test://other')
      .set('Authorization', 'Bearer admin-token')
      .send(r.body);
    expectRpcError(bad, 400, -32020, 1);
  });
});
