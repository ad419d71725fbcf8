import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error.js';
import { assertId, isId, newId } from '../common/ids.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';
import type { CreateTaskDto } from './task.dto.js';
import type { TaskRow } from './task.view.js';

const JSONB_COLUMNS = new Set(['input_schema', 'launch_policy', 'destinations']);

/** The tasks table as TasksService reads and writes it: live tasks of one organisation (deleted ones look missing). */
@Injectable()
export class TaskRecords {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  /** Newest first, after the keyset `after`; `limit` rows at most. */
  list(orgId: string, limit: number, after?: string): Promise<TaskRow[]> {
    return this.db.query<TaskRow>(
      `select * from tasks where org_id = $1 and deleted_at is null ${after ? 'and id < $3' : ''} order by id desc limit $2`,
      after ? [orgId, limit, after] : [orgId, limit],
    );
  }

  /** The newest 200, for the runnable tasks resource. */
  newest(orgId: string): Promise<TaskRow[]> {
    return this.db.query<TaskRow>(
      'select * from tasks where org_id = $1 and deleted_at is null order by id desc limit 200',
      [orgId],
    );
  }

  async insert(orgId: string, dto: CreateTaskDto): Promise<TaskRow> {
    const [row] = await this.db.query<TaskRow>(
      `insert into tasks (id, org_id, name, description, kind, instructions, input_schema, cost_cap, launch_policy, destinations)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, '{"roles":[],"member_ids":[]}'::jsonb, '[]'::jsonb) returning *`,
      [
        newId(),
        orgId,
        dto.name,
        dto.description ?? '',
        dto.kind,
        dto.instructions ?? '',
        JSON.stringify(dto.input_schema ?? null),
        dto.cost_cap,
      ],
    );
    return row!;
  }

  /** A live task of the org, or 404 (missing, foreign and deleted look the same). */
  async load(q: Queryable, orgId: string, taskId: string): Promise<TaskRow> {
    const id = assertId(taskId, 'task');
    const [row] = await q.query<TaskRow>('select * from tasks where id = $1 and org_id = $2 and deleted_at is null', [
      id,
      orgId,
    ]);
    if (!row) throw ApiError.notFound('task');
    return row;
  }

  /** Sets the given fields (undefined ones are left as they are), or 404. */
  async patch(orgId: string, taskId: string, fields: Record<string, unknown>): Promise<TaskRow> {
    const id = assertId(taskId, 'task');
    const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
    const sets = entries.map(([k], i) => `${k} = $${i + 3}${JSONB_COLUMNS.has(k) ? '::jsonb' : ''}`);
    const [row] = await this.db.query<TaskRow>(
      `update tasks set ${[...sets, 'updated_at = now()'].join(', ')} where id = $1 and org_id = $2 and deleted_at is null returning *`,
      [id, orgId, ...entries.map(([, v]) => v)],
    );
    if (!row) throw ApiError.notFound('task');
    return row;
  }

  /** Marks it deleted (its executions stay readable), or 404. */
  async remove(orgId: string, taskId: string): Promise<TaskRow> {
    const id = assertId(taskId, 'task');
    const [row] = await this.db.query<TaskRow>(
      'update tasks set deleted_at = now(), updated_at = now() where id = $1 and org_id = $2 and deleted_at is null returning *',
      [id, orgId],
    );
    if (!row) throw ApiError.notFound('task');
    return row;
  }

  /** Which of these ids are live members of the org (another org's member id is simply not found). */
  async memberIds(orgId: string, ids: readonly string[]): Promise<string[]> {
    const valid = ids.filter(isId);
    if (!valid.length) return [];
    const rows = await this.db.query<{ id: string }>(
      'select id from members where org_id = $1 and deleted_at is null and id = any($2::text[])',
      [orgId, valid],
    );
    return rows.map((r) => r.id);
  }

  /** Whether the org has this live webhook. */
  async hasWebhook(orgId: string, webhookId: string): Promise<boolean> {
    if (!isId(webhookId)) return false;
    const found = await this.db.query('select 1 from webhooks where id = $1 and org_id = $2 and deleted_at is null', [
      webhookId,
      orgId,
    ]);
    return found.length > 0;
  }
}
