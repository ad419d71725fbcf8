import request from 'supertest';
import { McpToolRegistry } from '@kobana/nest-mcp';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { ToolHandler } from '@kobana/nest-mcp/dispatch/tool.handler.js';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { PRINCIPALS } from '../fixtures/tools-app/principal.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/** Issue 3: listing — one authorization decision, deterministic order, sealed cursors, cached pages. */
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

const ALL_FOR_ADMIN = [
  'echo',
  'notes_update',
  'notes_delete',
  'admin_report',
  'clock_now',
  'boom',
  'picture',
  'request_stamp',
  'filler_a',
  'filler_b',
  'ask_name',
  'two_rounds',
];

describe.each(ERAS)('tools/list, %s era', (era, build) => {
  const list = async (token: string, cursor?: string) => {
    const r = build('tools/list', cursor === undefined ? {} : { cursor }, { id: 'l' });
    return request(t.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
  };

  async function listAll(token: string): Promise<{ names: string[]; pages: number; tools: Record<string, unknown>[] }> {
    const tools: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = expectRpcResult(await list(token, cursor), 'l');
      pages++;
      tools.push(...(result.tools as Record<string, unknown>[]));
      cursor = result.nextCursor as string | undefined;
      if (era === '2025') expect(result).not.toHaveProperty('ttlMs');
      else expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    } while (cursor);
    return { names: tools.map((x) => x.name as string), pages, tools };
  }

  it('pages through every tool the admin may run, in a stable order', async () => {
    const first = await listAll('admin-token');
    expect(first.names).toEqual(ALL_FOR_ADMIN);
    expect(first.pages).toBe(4);
    expect((await listAll('admin-token')).names).toEqual(first.names);
  });

  it('hides tools by role and by scope from a viewer', async () => {
    const { names } = await listAll('viewer-token');
    expect(names).not.toContain('admin_report');
    expect(names).not.toContain('notes_update');
    expect(names).not.toContain('notes_delete');
    expect(names).toContain('echo');
  });

  it('hides scope-gated tools from an admin whose token lacks the scope', async () => {
    const { names } = await listAll('admin-readonly-token');
    expect(names).toContain('admin_report');
    expect(names).not.toContain('notes_update');
  });

  it('lists title, description, inputSchema and all four annotation booleans', async () => {
    const { tools } = await listAll('admin-token');
    for (const tool of tools) {
      expect(typeof tool.description).toBe('string');
      expect((tool.inputSchema as { type: string }).type).toBe('object');
      const annotations = tool.annotations as Record<string, unknown>;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect(typeof annotations[hint], `${tool.name as string}.${hint}`).toBe('boolean');
      }
    }
    const update = tools.find((x) => x.name === 'notes_update')!;
    expect(update).toMatchObject({
      title: 'Update a note',
      annotations: {
        title: 'Update a note',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
    expect(update.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        note_id: { type: 'string', description: 'The id of the note' },
        title: { type: ['string', 'null'], minLength: 1, maxLength: 80 },
      },
      required: ['note_id'],
      additionalProperties: false,
    });
  });

  it('refuses a cursor from another visibility, an edited cursor and garbage with -32602', async () => {
    const adminCursor = expectRpcResult(await list('admin-token'), 'l').nextCursor as string;
    expectRpcError(await list('viewer-token', adminCursor), 200, -32602, 'l');
    const edited = adminCursor.slice(0, -2) + (adminCursor.endsWith('AA') ? 'BB' : 'AA');
    expectRpcError(await list('admin-token', edited), 200, -32602, 'l');
    expectRpcError(await list('admin-token', 'x'), 200, -32602, 'l');
  });
});

describe('no schema work and no serialization on the request path', () => {
  it('serves one cached page object per visibility and page', () => {
    const tools = t.app.get(ToolHandler);
    const a = tools.visibleTools(PRINCIPALS['admin-token']);
    const b = tools.visibleTools({ ...PRINCIPALS['admin-token']!, scopes: ['notes.write', 'notes.read'] });
    expect(b).toBe(a);
    expect(a.page(undefined)).toBe(a.page(undefined));
    expect(tools.visibleTools(PRINCIPALS['viewer-token'])).not.toBe(a);
  });

  it('keeps each tool schema computed at bootstrap', () => {
    const registry = t.app.get(McpToolRegistry);
    const echo = registry.get('echo')!;
    expect(echo.listing.inputSchema).toBe(echo.inputSchema);
    expect(echo.inputSchema).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 100, description: 'Text to echo back' },
        times: { type: ['integer', 'null'], minimum: 1, maximum: 5 },
        mode: { type: ['string', 'null'], enum: ['upper', 'lower', null] },
      },
      required: ['text'],
      additionalProperties: false,
    });
  });
});
