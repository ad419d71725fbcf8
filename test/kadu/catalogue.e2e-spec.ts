import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';

/** The tool catalogue of docs/kadu.md: names, hints exactly as the table says, openWorldHint false everywhere. */
let kadu: KaduTestApp;
let owner: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  owner = new KaduClient(kadu, { role: 'owner', user: 'olga@acme.test' });
});
afterAll(() => kadu.close());

// name → [readOnly, destructive, idempotent], from docs/kadu.md §Tool catalogue.
const CATALOGUE: Record<string, [boolean, boolean, boolean]> = {
  kadu_me_get: [true, false, true],
  kadu_usage_get: [true, false, true],
  kadu_tasks_list: [true, false, true],
  kadu_tasks_get: [true, false, true],
  kadu_tasks_create: [false, false, false],
  kadu_tasks_update: [false, false, true],
  kadu_tasks_set_launch_policy: [false, true, true],
  kadu_tasks_set_destinations: [false, true, true],
  kadu_tasks_delete: [false, true, true],
  kadu_tasks_run: [false, true, false],
  kadu_executions_list: [true, false, true],
  kadu_executions_get: [true, false, true],
  kadu_executions_steps_list: [true, false, true],
  kadu_executions_continue: [false, true, false],
  kadu_executions_cancel: [false, true, true],
  kadu_files_create: [false, false, false],
  kadu_files_confirm: [false, false, true],
  kadu_files_list: [true, false, true],
  kadu_files_get: [true, false, true],
  kadu_files_download: [true, false, true],
  kadu_files_delete: [false, true, true],
  kadu_webhooks_list: [true, false, true],
  kadu_webhooks_get: [true, false, true],
  kadu_webhooks_create: [false, true, false],
  kadu_webhooks_update: [false, true, true],
  kadu_webhooks_delete: [false, true, true],
  kadu_webhooks_rotate_secret: [false, true, false],
  kadu_webhook_deliveries_list: [true, false, true],
  kadu_webhook_deliveries_get: [true, false, true],
  kadu_webhook_deliveries_replay: [false, true, false],
  kadu_secrets_list: [true, false, true],
  kadu_secrets_get: [true, false, true],
  kadu_secrets_rotate: [false, true, false],
  kadu_secrets_delete: [false, true, false],
  kadu_members_list: [true, false, true],
  kadu_members_update_role: [false, true, true],
  kadu_members_remove: [false, true, true],
};

describe.each(ERAS)('%s era', (era) => {
  it('lists the whole catalogue to an owner, with titles, descriptions and exact hints', async () => {
    const tools = await owner.listTools(era);
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(CATALOGUE).sort());
    for (const tool of tools) {
      const [readOnlyHint, destructiveHint, idempotentHint] = CATALOGUE[tool.name]!;
      expect(tool.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint,
        destructiveHint,
        idempotentHint,
        openWorldHint: false,
      });
      expect(tool.description.length, tool.name).toBeGreaterThan(15);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.properties).not.toHaveProperty('org_id');
      expect(tool.inputSchema.properties).not.toHaveProperty('organization');
    }
    const run = tools.find((t) => t.name === 'kadu_tasks_run')!;
    expect(run.inputSchema).toMatchObject({
      properties: {
        task_id: { type: 'string' },
        input: { type: 'object' },
        input_file_ids: { type: 'array' },
        idempotency_key: { type: 'string', maxLength: 255 },
      },
      required: ['task_id'],
      additionalProperties: false,
    });
  });

  it('every destructive tool checks its arguments before asking anyone: {} is a 422, no approval, nothing runs', async () => {
    const before = (await owner.rest('get', '/api/v1/tasks')).body;
    for (const [name, [, destructive]] of Object.entries(CATALOGUE)) {
      if (!destructive) continue;
      const res = await owner.tool(era, name, {});
      expect(res.isError, name).toBe(true);
      expect(res.body.status, name).toBe(422);
      expect(
        res.body.errors.map((e: { code: string }) => e.code),
        name,
      ).toContain('validation_failed');
    }
    expect((await owner.rest('get', '/api/v1/tasks')).body).toEqual(before);
  });

  it('a viewer sees only the read tools', async () => {
    const names = (await owner.as({ role: 'viewer', user: 'vic@acme.test' }).listTools(era)).map((t) => t.name);
    expect(names.sort()).toEqual(
      Object.entries(CATALOGUE)
        .filter(([, [ro]]) => ro)
        .map(([n]) => n)
        .sort(),
    );
  });
});
