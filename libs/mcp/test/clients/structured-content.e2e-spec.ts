import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { ResultsService } from '../fixtures/tools-app/results.service.js';

/**
 * Issue 31: the official clients validate structuredContent against the listed outputSchema
 * themselves (after tools/list); both accept every tool with a declared output, in their era.
 */
const requestInit = { headers: { Authorization: 'Bearer admin-token' } };
const apps: ToolsApp[] = [];

async function endpointOf(options: { checkOutput?: boolean } = {}): Promise<URL> {
  const t = await startToolsApp({ providers: [ResultsService], ...options });
  apps.push(t);
  await t.app.listen(0, '127.0.0.1');
  return new URL(`http://127.0.0.1:${(t.server.address() as { port: number }).port}/mcp`);
}
afterAll(() => Promise.all(apps.map((t) => t.app.close())));

type AnyClient = {
  listTools(p?: {
    cursor?: string;
  }): Promise<{ tools: { name: string; outputSchema?: unknown }[]; nextCursor?: string }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
};

const clients: [string, (endpoint: URL) => Promise<AnyClient>, string][] = [
  [
    '@modelcontextprotocol/client 2.4.0',
    async (endpoint) => {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new TransportV2(endpoint, { requestInit }));
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return client as unknown as AnyClient;
    },
    '2026-07-28',
  ],
  [
    '@modelcontextprotocol/sdk 1.32.2',
    async (endpoint) => {
      const client = new ClientV1({ name: 'v1', version: '1.0.0' });
      await client.connect(new TransportV1(endpoint, { requestInit }));
      expect(client.getServerVersion()?.name).toBe('tools-test');
      return client as unknown as AnyClient;
    },
    '2025',
  ],
];

/**
 * Pages through tools/list (up to the page naming `until`). Each client keeps the validators of
 * the tools it listed — v1 only those of the last page it read.
 */
async function listAll(client: AnyClient, until?: string): Promise<{ name: string; outputSchema?: unknown }[]> {
  const tools: { name: string; outputSchema?: unknown }[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    if (page.tools.some((tool) => tool.name === until)) break;
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

describe.each(clients)('%s', (_name, connect) => {
  it('accepts the structuredContent of every tool that lists an outputSchema', async () => {
    const client = await connect(await endpointOf());
    try {
      const tools = await listAll(client);
      const typed = tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name);
      expect(typed.sort()).toEqual(['cities', 'cities_rich', 'forecast', 'forecast_broken']);
      for (const [name, args] of [
        ['forecast', { city: 'Recife' }],
        ['cities', {}],
        ['cities_rich', {}],
      ] as const) {
        await listAll(client, name);
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBeFalsy();
        expect(result.structuredContent, name).toEqual(
          JSON.parse((result.content as { type: string; text: string }[])[0]!.text),
        );
      }
    } finally {
      await client.close();
    }
  });

  it('refuses a result that contradicts its schema when the server does not check (so the server must)', async () => {
    const client = await connect(await endpointOf({ checkOutput: false }));
    try {
      await listAll(client, 'forecast_broken');
      await expect(client.callTool({ name: 'forecast_broken', arguments: {} })).rejects.toThrow(
        /[Ss]tructured content does not match/,
      );
    } finally {
      await client.close();
    }
    const checked = await connect(await endpointOf());
    try {
      await listAll(checked, 'forecast_broken');
      const result = await checked.callTool({ name: 'forecast_broken', arguments: {} });
      expect(result.isError).toBe(true);
    } finally {
      await checked.close();
    }
  });
});
