import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { HostApi } from './host-api.js';

/**
 * A minimal MCP Apps host, as a chat would be: the official client (v2, 2026-07-28) connects to
 * Kadu as the person, a tool runs, the app its listing names is read and rendered in a sandboxed
 * iframe, and ext-apps' AppBridge forwards the app's calls to Kadu through that same client.
 * Bundled for the browser by test/support/apps-host.ts; driven by test/kadu/execution-app-browser.
 */
const UI = 'io.modelcontextprotocol/ui';

declare global {
  // The functions the test drives (host-api.ts), added to the browser's own Window.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Window extends HostApi {}
}

let client: Client;
window.openedLinks = [];

window.hostConnect = async (token) => {
  client = new Client({ name: 'kadu-test-host', version: '1.0.0' }, {
    versionNegotiation: { mode: 'auto' },
    capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } },
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.origin), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
};

window.hostCall = async (tool, args) =>
  (await client.callTool({ name: tool, arguments: args })) as Record<string, unknown>;

window.hostOpenApp = async (tool, args, result) => {
  const { tools } = await client.listTools();
  const listed = tools.find((t) => t.name === tool);
  const resourceUri = (listed?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
  if (!resourceUri) throw new Error(`${tool} names no app`);
  const read = await client.readResource({ uri: resourceUri });
  const html = (read.contents[0] as { text: string }).text;

  const iframe = document.createElement('iframe');
  iframe.title = 'Kadu execution app';
  // Scripts only: an opaque origin, no top navigation, no forms, no popups.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.srcdoc = html;
  document.getElementById('apps')!.append(iframe);

  const bridge = new AppBridge(
    client,
    { name: 'kadu-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {} },
  );
  bridge.onopenlink = async ({ url }) => {
    window.openedLinks.push(url);
    return {};
  };
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args });
    void bridge.sendToolResult(result as never);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  return resourceUri;
};
