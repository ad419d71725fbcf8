import request from 'supertest';
import { legacyInitialize, legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { AppsService, DanglingAppService, FORECAST_APP_HTML } from '../fixtures/tools-app/apps.service.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/** Issue 31: MCP Apps (io.modelcontextprotocol/ui, SEP-1865) declared by an app built with the module. */
const UI = 'io.modelcontextprotocol/ui';
const RENDERS_APPS = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
let withApps: ToolsApp;
let without: ToolsApp;

beforeAll(async () => {
  withApps = await startToolsApp({ providers: [AppsService] });
  without = await startToolsApp();
});
afterAll(() => Promise.all([withApps.app.close(), without.app.close()]));

const send = (t: ToolsApp, r: McpTestRequest, token = 'admin-token') =>
  request(t.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);

async function tools(t: ToolsApp, build: (cursor?: string) => McpTestRequest): Promise<Record<string, any>> {
  const byName: Record<string, any> = {};
  let cursor: string | undefined;
  do {
    const result = expectRpcResult(await send(t, build(cursor)), 'l');
    for (const tool of result.tools as Record<string, any>[]) byName[tool.name] = tool;
    cursor = result.nextCursor as string | undefined;
  } while (cursor);
  return byName;
}

describe('advertised only when the app declares an app', () => {
  it('server/discover and initialize carry the extension with its mime type', async () => {
    const discover = expectRpcResult(await send(withApps, modernRequest('server/discover', {}, { id: 'd' })), 'd');
    expect(discover.capabilities).toMatchObject({ extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } });
    const init = expectRpcResult(
      await send(withApps, { ...legacyInitialize(), body: { ...legacyInitialize().body, id: 'i' } }),
      'i',
    );
    expect(init.capabilities).toMatchObject({ extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } });
  });

  it('an app without one advertises nothing of it', async () => {
    const discover = expectRpcResult(await send(without, modernRequest('server/discover', {}, { id: 'd' })), 'd');
    expect(JSON.stringify(discover)).not.toContain(UI);
    const init = expectRpcResult(
      await send(without, { ...legacyInitialize(), body: { ...legacyInitialize().body, id: 'i' } }),
      'i',
    );
    expect(JSON.stringify(init)).not.toContain(UI);
  });

  it('a tool naming an undeclared app stops the app at bootstrap, naming both', async () => {
    await expect(startToolsApp({ providers: [DanglingAppService] })).rejects.toThrow(
      /'dangling' on DanglingAppService\.dangling: ui 'ui:\/\/nowhere\/view' is not declared/,
    );
  });
});

describe('tools/list', () => {
  it('2026, a client that renders apps: _meta.ui.resourceUri, and visibility for the app-only tool', async () => {
    const listed = await tools(withApps, (cursor) =>
      modernRequest('tools/list', cursor ? { cursor } : {}, { id: 'l', capabilities: RENDERS_APPS }),
    );
    expect(listed.forecast_shown._meta).toEqual({ ui: { resourceUri: 'ui://forecast/view' } });
    expect(listed.forecast_refresh._meta).toEqual({ ui: { resourceUri: 'ui://forecast/view', visibility: ['app'] } });
    expect(listed.echo).not.toHaveProperty('_meta');
  });

  it('2026, a client that does not: the same tools, without UI metadata', async () => {
    const plain = await tools(withApps, (cursor) => modernRequest('tools/list', cursor ? { cursor } : {}, { id: 'l' }));
    const rich = await tools(withApps, (cursor) =>
      modernRequest('tools/list', cursor ? { cursor } : {}, { id: 'l', capabilities: RENDERS_APPS }),
    );
    expect(Object.keys(plain)).toEqual(Object.keys(rich));
    expect(plain.forecast_shown).not.toHaveProperty('_meta');
    const { _meta, ...rest } = rich.forecast_shown;
    expect(_meta).toBeDefined();
    expect(plain.forecast_shown).toEqual(rest);
  });

  it('2025: listed with the UI metadata (what initialize declared is not known to a stateless server)', async () => {
    const listed = await tools(withApps, (cursor) =>
      legacyRequest('tools/list', cursor ? { cursor } : {}, { id: 'l' }),
    );
    expect(listed.forecast_shown._meta).toEqual({ ui: { resourceUri: 'ui://forecast/view' } });
  });
});

describe.each([
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
] as const)('resources/read of the app, %s', (_era, build) => {
  async function resources(token: string): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const result = expectRpcResult(
        await send(withApps, build('resources/list', cursor ? { cursor } : {}, { id: 'r' }), token),
        'r',
      );
      all.push(...(result.resources as Record<string, unknown>[]));
      cursor = result.nextCursor as string | undefined;
    } while (cursor);
    return all;
  }

  it('serves the HTML as text/html;profile=mcp-app with _meta.ui (csp, prefersBorder), and lists it', async () => {
    const read = expectRpcResult(
      await send(withApps, build('resources/read', { uri: 'ui://forecast/view' }, { id: 'r' })),
      'r',
    );
    expect(read.contents).toEqual([
      {
        uri: 'ui://forecast/view',
        mimeType: 'text/html;profile=mcp-app',
        text: FORECAST_APP_HTML,
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ]);
    expect(await resources('admin-token')).toContainEqual(
      expect.objectContaining({ uri: 'ui://forecast/view', mimeType: 'text/html;profile=mcp-app' }),
    );
  });

  it('obeys the same access decision as every resource: a viewer neither lists nor reads it', async () => {
    const read = await send(
      withApps,
      build('resources/read', { uri: 'ui://forecast/view' }, { id: 'r' }),
      'viewer-token',
    );
    expectRpcError(read, 200, -32602, 'r');
    expect(read.text).not.toContain('<main');
    const listed = await resources('viewer-token');
    expect(listed.length).toBeGreaterThan(0);
    expect(JSON.stringify(listed)).not.toContain('ui://forecast/view');
  });
});
