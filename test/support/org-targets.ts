import request from 'supertest';
import { newId } from '../../src/common/ids.js';
import { DATABASE, type Database } from '../../src/db/database.js';
import type { KaduTestApp } from './kadu-app.js';
import type { KaduClient } from './kadu-client.js';
import { put, sha256, uploadFile } from './files.js';

/** Every kind of thing an organisation owns that has an id callers can name. */
export type TargetKind = 'task' | 'execution' | 'file' | 'upload' | 'webhook' | 'delivery' | 'secret' | 'member';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let serial = 0;

/**
 * Creates a fresh target of each kind for one organisation, and reads it back as its owner sees it
 * (the "snapshot" a cross-organisation test compares before and after a foreign request).
 */
export class OrgTargets {
  constructor(
    private readonly kadu: KaduTestApp,
    private readonly owner: KaduClient,
    private readonly webhookUrl: string,
  ) {}

  private get db(): Database {
    return this.kadu.app.get(DATABASE) as Database;
  }

  /** A new target; never an undefined or malformed id, so no test can pass vacuously. */
  async make(kind: TargetKind): Promise<string> {
    const id = await this.create(kind);
    if (!UUID.test(id)) throw new Error(`the ${kind} fixture has no id: ${String(id)}`);
    return id;
  }

  private async create(kind: TargetKind): Promise<string> {
    const n = ++serial;
    switch (kind) {
      case 'task':
        return this.ok(
          await this.owner.rest('post', '/api/v1/tasks', { name: `target ${n}`, kind: 'echo', cost_cap: 5 }),
        ).id;
      case 'execution': {
        // An execution waiting for an answer: it stays put until someone continues or cancels it.
        const task = await this.make('task');
        const memberId = this.ok(await this.owner.rest('get', '/api/v1/me')).member.id;
        const [{ org_id: orgId }] = await this.db.query<{ org_id: string }>('select org_id from tasks where id = $1', [
          task,
        ]);
        const id = newId();
        await this.db.query(
          `insert into executions (id, org_id, task_id, status, input, input_file_ids, output_file_ids, question, cost_cap, requested_by, started_at)
           values ($1, $2, $3, 'awaiting_input', '{}'::jsonb, '[]'::jsonb, '[]'::jsonb, '{"text":"Which ledger?"}'::jsonb, 5, $4, now())`,
          [id, orgId, task, memberId],
        );
        return id;
      }
      case 'file':
        return uploadFile(this.kadu, this.owner, `target-${n}.csv`, `a\n${n}\n`);
      case 'upload': {
        // Bytes uploaded, not yet confirmed.
        const bytes = Buffer.from(`b\n${n}\n`);
        const created = this.ok(
          await this.owner.rest('post', '/api/v1/files', {
            name: `up-${n}.csv`,
            content_type: 'text/csv',
            size: bytes.length,
            sha256: sha256(bytes),
          }),
        );
        const uploaded = await put(this.kadu, created.upload_url, bytes, 'text/csv');
        if (uploaded.status < 200 || uploaded.status > 299)
          throw new Error(`upload: ${uploaded.status} ${uploaded.text}`);
        return created.file.id;
      }
      case 'webhook':
        return this.ok(await this.owner.rest('post', '/api/v1/webhooks', { url: this.webhookUrl })).id;
      case 'delivery': {
        const hook = await this.make('webhook');
        const [{ org_id: orgId }] = await this.db.query<{ org_id: string }>(
          'select org_id from webhooks where id = $1',
          [hook],
        );
        const id = newId();
        await this.db.query(
          `insert into webhook_deliveries (id, org_id, webhook_id, event, payload, status, attempts, response_code)
           values ($1, $2, $3, 'execution.succeeded', '{"n":${n}}'::jsonb, 'delivered', 1, 200)`,
          [id, orgId, hook],
        );
        return id;
      }
      case 'secret':
        return this.ok(await this.owner.rest('post', '/api/v1/secrets', { name: `SECRET_${n}` })).secret.id;
      case 'member':
        return this.ok(
          await this.owner.rest('post', '/api/v1/members', {
            email: `m${n}@owner.test`,
            name: `M${n}`,
            role: 'viewer',
          }),
        ).id;
    }
  }

  /** What the owner sees of the target and of what hangs off it. */
  async snapshot(kind: TargetKind, id: string): Promise<unknown> {
    const read = async (path: string) => {
      const res = await this.owner.rest('get', path);
      return { status: res.status, data: res.body.data };
    };
    switch (kind) {
      case 'task':
        return [await read(`/api/v1/tasks/${id}`), await read(`/api/v1/executions?task_id=${id}`)];
      case 'execution':
        return [await read(`/api/v1/executions/${id}`), await read(`/api/v1/executions/${id}/steps`)];
      case 'file':
      case 'upload':
        return read(`/api/v1/files/${id}`);
      case 'webhook':
        return [await read(`/api/v1/webhooks/${id}`), await read(`/api/v1/webhook_deliveries?webhook_id=${id}`)];
      case 'delivery': {
        const delivery = await read(`/api/v1/webhook_deliveries/${id}`);
        return [
          delivery,
          await read(`/api/v1/webhook_deliveries?webhook_id=${(delivery.data as { webhook_id: string }).webhook_id}`),
        ];
      }
      case 'secret':
        return read(`/api/v1/secrets/${id}`);
      case 'member': {
        const members = await read('/api/v1/members?limit=100');
        return (members.data as { id: string }[]).find((m) => m.id === id) ?? 'gone';
      }
    }
  }

  private ok(res: request.Response): any {
    if (res.status >= 300) throw new Error(`fixture: ${res.status} ${res.text}`);
    return res.body.data;
  }
}
