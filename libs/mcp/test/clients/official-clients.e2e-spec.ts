import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';

/** Issue 3: the official clients list and call @McpTool methods of a running app. */
let t: ToolsApp;
let endpoint: URL;
const requestInit = { headers: { Authorization: 'Bearer admin-token' } };

beforeAll(async () => {
  t = await startToolsApp();
  await t.app.listen(0, '127.0.0.1');
  endpoint = new URL(`http://127.0.0.1:${(t.server.address() as { port: number }).port}/mcp`);
});
afterAll(() => t.app.close());

it('@modelcontextprotocol/client 2.4.0 (2026-07-28) lists and calls tools', async () => {
  const client = new ClientV2({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(endpoint, { requestInit }));
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toContain('notes_update');
    const result = await client.callTool({ name: 'notes_update', arguments: { note_id: 'n1', title: 'From v2' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content as { text: string }[])[0]!.text).data.title).toBe('From v2');
  } finally {
    await client.close();
  }
});

it('@modelcontextprotocol/sdk 1.32.2 (2025 era) lists and calls tools', async () => {
  const client = new ClientV1({ name: 'v1', version: '1.0.0' });
  await client.connect(new TransportV1(endpoint, { requestInit }));
  try {
    const { tools } = await client.listTools();
    expect(tools.find((x) => x.name === 'echo')?.inputSchema.required).toEqual(['text']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello', mode: 'upper' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content as { text: string }[])[0]!.text).data.text).toBe('HELLO');
    const invalid = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(invalid.isError).toBe(true);
  } finally {
    await client.close();
  }
});
