import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

/** The official TypeScript clients against the running Kadu app (issue 2 acceptance). */
let kadu: KaduTestApp;
let endpoint: URL;

beforeAll(async () => {
  kadu = await startKadu();
  await kadu.app.listen(0, '127.0.0.1');
  endpoint = new URL(`http://127.0.0.1:${(kadu.server.address() as { port: number }).port}/mcp`);
});
afterAll(() => kadu.close());

/** The admin's catalogue: Kadu's tools, each with a schema and annotations, none hidden behind a cursor. */
function expectKaduCatalogue(tools: { name: string; inputSchema: { type: string }; annotations?: object }[]): void {
  const names = tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining([
      'kadu_me_get',
      'kadu_tasks_list',
      'kadu_tasks_run',
      'kadu_executions_get',
      'kadu_files_create',
      'kadu_webhooks_list',
    ]),
  );
  expect(names.every((n) => n.startsWith('kadu_'))).toBe(true);
  expect(new Set(names).size).toBe(names.length);
  for (const tool of tools) {
    expect(tool.inputSchema.type, tool.name).toBe('object');
    expect(tool.annotations, tool.name).toBeDefined();
  }
}

const auth = (token?: string) => ({
  requestInit: { headers: (token ? { Authorization: `Bearer ${token}` } : {}) as Record<string, string> },
});

describe('@modelcontextprotocol/client 2.4.0', () => {
  it('negotiates 2026-07-28 through server/discover and lists tools', async () => {
    const client = new ClientV2({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(endpoint, auth(await kadu.token())));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'kadu', version: '1.0.0' });
      const { tools } = await client.listTools();
      expectKaduCatalogue(tools);
      const me = await client.callTool({ name: 'kadu_me_get', arguments: {} });
      expect(me.isError).toBeFalsy();
      expect(JSON.parse((me.content as { text: string }[])[0]!.text).data.member.email).toBe('ana@acme.test');
    } finally {
      await client.close();
    }
  });

  it('gets 401 without a token', async () => {
    const client = new ClientV2({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(client.connect(new TransportV2(endpoint, auth()))).rejects.toThrow(/401|Unauthorized/i);
  });
});

describe('@modelcontextprotocol/sdk 1.32.2', () => {
  it('completes initialize on a 2025 revision and lists tools', async () => {
    const client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
    const transport = new TransportV1(endpoint, auth(await kadu.token()));
    await client.connect(transport);
    try {
      // The SDK asks for its newest revision (2025-11-25), which Kadu does not enable: it gets 2025-06-18.
      expect(transport.protocolVersion).toBe('2025-06-18');
      expect(client.getServerVersion()).toMatchObject({ name: 'kadu', title: 'Kadu' });
      expect(client.getInstructions()).toContain('Kadu');
      const { tools } = await client.listTools();
      expectKaduCatalogue(tools);
      const me = await client.callTool({ name: 'kadu_me_get', arguments: {} });
      expect(me.isError).toBeFalsy();
      expect(JSON.parse((me.content as { text: string }[])[0]!.text).data.organization.slug).toBe('acme');
      await expect(client.ping()).resolves.toEqual({});
    } finally {
      await client.close();
    }
  });

  it('gets 401 without a token', async () => {
    const client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
    const failure = client.connect(new TransportV1(endpoint, auth()));
    await expect(failure).rejects.toMatchObject({ code: 401 });
    await expect(failure).rejects.toThrow(/invalid_token/);
  });
});

describe('resources and prompts through the official clients', () => {
  let taskId: string;

  beforeAll(async () => {
    const { KaduClient } = await import('../support/kadu-client.js');
    const admin = new KaduClient(kadu);
    taskId = (await admin.rest('post', '/api/v1/tasks', { name: 'Client task', kind: 'echo', cost_cap: 3 })).body.data
      .id;
  });

  it('v2 (2026-07-28) lists templates, reads a task resource and gets a prompt', async () => {
    const client = new ClientV2({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(endpoint, auth(await kadu.token())));
    try {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('kobana://kadu/tasks/{id}');
      const read = await client.readResource({ uri: `kobana://kadu/tasks/${taskId}` });
      expect(JSON.parse((read.contents[0] as { text: string }).text).data.name).toBe('Client task');
      const prompt = await client.getPrompt({ name: 'kadu_run_task', arguments: { task_id: taskId } });
      expect((prompt.messages[0]!.content as { text: string }).text).toContain('kadu_tasks_run');
    } finally {
      await client.close();
    }
  });

  it('v1 (2025 era) lists templates, reads a task resource and gets a prompt', async () => {
    const client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
    await client.connect(new TransportV1(endpoint, auth(await kadu.token())));
    try {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('kobana://kadu/executions/{id}');
      const read = await client.readResource({ uri: `kobana://kadu/tasks/${taskId}` });
      expect(JSON.parse((read.contents[0] as { text: string }).text).data.id).toBe(taskId);
      const prompt = await client.getPrompt({ name: 'kadu_cost_review' });
      expect((prompt.messages[0]!.content as { text: string }).text).toContain('kadu_executions_list');
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'kadu_run_task' },
        argument: { name: 'task_id', value: taskId.slice(0, 10) },
      });
      expect(completion.completion.values).toContain(taskId);
    } finally {
      await client.close();
    }
  });
});
