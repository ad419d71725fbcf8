import { iso } from '../common/serialize.js';

export interface TaskRow {
  id: string;
  org_id: string;
  name: string;
  description: string;
  kind: string;
  instructions: string;
  input_schema: Record<string, unknown> | null;
  cost_cap: number;
  launch_policy: { roles: string[]; member_ids: string[] };
  destinations: { type: 'webhook'; webhook_id: string }[];
  created_at: Date;
  updated_at: Date;
}

export function taskView(row: TaskRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    instructions: row.instructions,
    input_schema: row.input_schema,
    cost_cap: row.cost_cap,
    launch_policy: row.launch_policy,
    destinations: row.destinations,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type TaskView = ReturnType<typeof taskView>;
