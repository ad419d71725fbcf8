import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/** Issue 31: Kadu's execution app (ui://kadu/execution) as MCP sees it; the browser test is execution-app-browser. */
const UI = 'io.modelcontextprotocol/ui';
const RENDERS_APPS = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
const APP = 'ui://kadu/execution';
let kadu: KaduTestApp;
let viewer: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  viewer = new KaduClient(kadu, { role: 'viewer' });
});
afterAll(() => kadu.close());

it('server/discover and initialize advertise the extension', async () => {
  const discover = await viewer.mcp('2026', 'server/discover');
  expect(discover.body.result.capabilities.extensions[UI]).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  const init = await viewer.mcp('2025', 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  });
  expect(init.body.result.capabilities.extensions[UI]).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
});

it('kadu_tasks_run, kadu_executions_get and kadu_executions_continue open the app; nothing else does', async () => {
  const owner = viewer.as({ role: 'owner' });
  const listed = async (capabilities?: Record<string, unknown>) =>
    (await owner.mcp('2026', 'tools/list', {}, capabilities)).body.result.tools as Record<string, any>[];
  const withApps = await listed(RENDERS_APPS);
  const opening = withApps.filter((t) => t._meta?.ui).map((t) => [t.name, t._meta.ui]);
  expect(opening.sort()).toEqual([
    ['kadu_executions_continue', { resourceUri: APP }],
    ['kadu_executions_get', { resourceUri: APP }],
    ['kadu_tasks_run', { resourceUri: APP }],
  ]);
  // A client that does not declare the extension: the same tools, without the UI metadata.
  const plain = await listed();
  expect(plain.map((t) => t.name)).toEqual(withApps.map((t) => t.name));
  expect(plain.some((t) => t._meta)).toBe(false);
});

it('a viewer reads the app: self-contained HTML of the app profile, CSP declared with no origin at all', async () => {
  for (const era of ['2026', '2025'] as const) {
    const res = await viewer.mcp(era, 'resources/read', { uri: APP });
    const [content] = res.body.result.contents;
    expect(content).toMatchObject({ uri: APP, mimeType: 'text/html;profile=mcp-app' });
    expect(content._meta.ui).toEqual({
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
      prefersBorder: true,
    });
    const html = content.text as string;
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("default-src 'none'");
    expect(html).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    // Nothing from outside the document: no URL, no src or href attribute.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/\s(src|href)=/);
  }
});

it('the app obeys the access decision of a resource: a token without executions.read is asked to step up, never served', async () => {
  const narrow = viewer.as({ scopes: ['kadu.tasks.read'] });
  const res = await narrow.mcp('2026', 'resources/read', { uri: APP });
  // What every resource behind a missing scope answers (docs/kadu.md §Scopes): 403 with the scope to ask for.
  expect(res.status).toBe(403);
  expect(res.body.error).toBe('insufficient_scope');
  expect(res.headers['www-authenticate']).toContain('kadu.executions.read');
  expect(res.text).not.toContain('<main');
  const listed = await narrow.mcp('2026', 'resources/list');
  expect(JSON.stringify(listed.body.result)).not.toContain(APP);
});
