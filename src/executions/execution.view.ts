import { iso } from '../common/serialize.js';

export type ExecutionStatus = 'queued' | 'running' | 'awaiting_input' | 'succeeded' | 'failed' | 'canceled';
export const ACTIVE_STATUSES: readonly ExecutionStatus[] = ['queued', 'running'];
export const FINAL_STATUSES: readonly ExecutionStatus[] = ['succeeded', 'failed', 'canceled'];

export interface ExecutionRow {
  id: string;
  org_id: string;
  task_id: string;
  status: ExecutionStatus;
  input: Record<string, unknown> | null;
  input_file_ids: string[];
  output: unknown;
  output_file_ids: string[];
  question: unknown;
  answers: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  cost_spent: number;
  cost_cap: number;
  cancel_requested: boolean;
  requested_by: string;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** The current run's fence (migration 4); null while queued. */
  run_token: string | null;
  resumes: number;
  run_start_seq: number | null;
}

export function executionView(row: ExecutionRow) {
  return {
    id: row.id,
    task_id: row.task_id,
    status: row.status,
    input: row.input,
    input_file_ids: row.input_file_ids,
    output: row.output ?? null,
    output_file_ids: row.output_file_ids,
    question: row.status === 'awaiting_input' ? row.question : null,
    error: row.error,
    cost: { spent: row.cost_spent, cap: row.cost_cap },
    requested_by: row.requested_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

export type ExecutionView = ReturnType<typeof executionView>;

export interface StepRow {
  id: string;
  execution_id: string;
  seq: number;
  kind: string;
  summary: string;
  created_at: Date;
}

export function stepView(row: StepRow) {
  return {
    id: row.id,
    execution_id: row.execution_id,
    seq: row.seq,
    kind: row.kind,
    summary: row.summary,
    created_at: iso(row.created_at),
  };
}
