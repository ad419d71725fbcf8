import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decide } from '../support/approvals.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { OrgTargets, type TargetKind } from '../support/org-targets.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { sha256 } from '../support/files.js';

/**
 * Issue 31 acceptance: for an owner every kadu_* tool lists an outputSchema, and every successful
 * result carries structuredContent that the official clients accept — they validate it against
 * the listed schema themselves (v1 on 2025-06-18, v2 on 2026-07-28).
 */
let kadu: KaduTestApp;
let endpoint: URL;
let owner: KaduClient;
let targets: OrgTargets;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  kadu = await startKadu({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  await kadu.app.listen(0, '127.0.0.1');
  endpoint = new URL(`http://127.0.0.1:${(kadu.server.address() as { port: number }).port}/mcp`);
  owner = new KaduClient(kadu, { role: 'owner' });
  targets = new OrgTargets(kadu, owner, receiver.url);
});
afterAll(async () => {
  await kadu?.close();
  await receiver.stop();
});

type Args = Record<string, unknown>;
/** Every kadu_* tool: the target it needs (made fresh for each call), its id argument, the others. */
const CALLS: [string, TargetKind | undefined, string | undefined, (() => Args) | Args][] = [
  ['kadu_me_get', undefined, undefined, {}],
  ['kadu_usage_get', undefined, undefined, {}],
  ['kadu_tasks_list', undefined, undefined, { limit: 5 }],
  ['kadu_tasks_create', undefined, undefined, () => ({ name: `t-${Math.random()}`, kind: 'echo', cost_cap: 3 })],
  ['kadu_tasks_get', 'task', 'task_id', {}],
  ['kadu_tasks_update', 'task', 'task_id', { name: 'renamed' }],
  ['kadu_tasks_set_launch_policy', 'task', 'task_id', { roles: ['owner'], member_ids: [] }],
  ['kadu_tasks_set_destinations', 'task', 'task_id', { destinations: [] }],
  ['kadu_tasks_run', 'task', 'task_id', { input: { n: 1 } }],
  ['kadu_tasks_delete', 'task', 'task_id', {}],
  ['kadu_executions_list', undefined, undefined, {}],
  ['kadu_executions_get', 'execution', 'execution_id', {}],
  ['kadu_executions_steps_list', 'execution', 'execution_id', {}],
  ['kadu_executions_continue', 'execution', 'execution_id', { answers: { ledger: 'L-1' } }],
  ['kadu_executions_cancel', 'execution', 'execution_id', {}],
  [
    'kadu_files_create',
    undefined,
    undefined,
    { name: 'a.csv', content_type: 'text/csv', size: 4, sha256: sha256(Buffer.from('a\n1\n')) },
  ],
  ['kadu_files_list', undefined, undefined, {}],
  ['kadu_files_get', 'file', 'file_id', {}],
  ['kadu_files_download', 'file', 'file_id', {}],
  ['kadu_files_delete', 'file', 'file_id', {}],
  ['kadu_files_confirm', 'upload', 'file_id', {}],
  ['kadu_webhooks_list', undefined, undefined, {}],
  ['kadu_webhooks_create', undefined, undefined, () => ({ url: receiver.url, events: ['execution.succeeded'] })],
  ['kadu_webhooks_get', 'webhook', 'webhook_id', {}],
  ['kadu_webhooks_update', 'webhook', 'webhook_id', { active: false }],
  ['kadu_webhooks_rotate_secret', 'webhook', 'webhook_id', {}],
  ['kadu_webhooks_delete', 'webhook', 'webhook_id', {}],
  ['kadu_webhook_deliveries_list', undefined, undefined, {}],
  ['kadu_webhook_deliveries_get', 'delivery', 'delivery_id', {}],
  ['kadu_webhook_deliveries_replay', 'delivery', 'delivery_id', {}],
  ['kadu_secrets_list', undefined, undefined, {}],
  ['kadu_secrets_get', 'secret', 'secret_id', {}],
  ['kadu_secrets_rotate', 'secret', 'secret_id', {}],
  ['kadu_secrets_delete', 'secret', 'secret_id', {}],
  ['kadu_members_list', undefined, undefined, {}],
  ['kadu_members_update_role', 'member', 'member_id', { role: 'operator' }],
  ['kadu_members_remove', 'member', 'member_id', {}],
];

interface AnyClient {
  listTools(p?: { cursor?: string }): Promise<{ tools: ListedTool[]; nextCursor?: string }>;
  callTool(p: { name: string; arguments: Args }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}
interface ListedTool {
  name: string;
  outputSchema?: Record<string, unknown>;
}

const CLIENTS: [string, (token: string) => Promise<AnyClient>][] = [
  [
    '@modelcontextprotocol/client 2.4.0 (2026-07-28)',
    async (token) => {
      const client = new ClientV2({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new TransportV2(endpoint, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
      );
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      return client as unknown as AnyClient;
    },
  ],
  [
    '@modelcontextprotocol/sdk 1.32.2 (2025-06-18)',
    async (token) => {
      const client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
      const transport = new TransportV1(endpoint, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
      await client.connect(transport);
      expect(transport.protocolVersion).toBe('2025-06-18');
      return client as unknown as AnyClient;
    },
  ],
];

const textOf = (result: Record<string, unknown>) =>
  (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')!.text!;

/** A destructive tool answers with the approval link; the person approves it on the page, the client calls again. */
async function callConfirmed(client: AnyClient, name: string, args: Args): Promise<Record<string, unknown>> {
  const first = await client.callTool({ name, arguments: args });
  if (!first.isError) return first;
  const error = (JSON.parse(textOf(first)) as { error?: { code?: string; approval_url?: string } }).error;
  if (error?.code !== 'approval_required') return first;
  expect((await decide(kadu.server, error.approval_url!, 'approve')).status).toBe(200);
  return client.callTool({ name, arguments: args });
}

describe.each(CLIENTS)('%s', (_label, connect) => {
  it('every kadu_* tool lists an outputSchema, and every result validates against it in the client', async () => {
    const client = await connect(await kadu.token({ role: 'owner' }));
    try {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      // One page: v1 keeps the validators of the last page it listed only.
      expect(cursor).toBeUndefined();
      expect(tools.map((t) => t.name).sort()).toEqual(CALLS.map(([name]) => name).sort());
      for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });

      for (const [name, kind, idArg, rest] of CALLS) {
        const args = {
          ...(kind ? { [idArg!]: await targets.make(kind) } : {}),
          ...(typeof rest === 'function' ? rest() : rest),
        };
        const result = await callConfirmed(client, name, args);
        expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
        // The client already validated it against the outputSchema; it is the text block's JSON.
        expect(result.structuredContent, name).toEqual(JSON.parse(textOf(result)));
        expect(result.structuredContent, name).toHaveProperty('data');
      }
    } finally {
      await client.close();
    }
  });
});
