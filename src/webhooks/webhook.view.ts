import { iso } from '../common/serialize.js';

export const WEBHOOK_EVENTS = ['execution.succeeded', 'execution.failed', 'execution.awaiting_input'] as const;

export interface WebhookRow {
  id: string;
  org_id: string;
  url: string;
  events: string[];
  active: boolean;
  secret_sealed: string;
  created_at: Date;
  updated_at: Date;
}

export function webhookView(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    active: row.active,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export interface DeliveryRow {
  id: string;
  org_id: string;
  webhook_id: string;
  event: string;
  payload: unknown;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  replay_of: string | null;
  /** The trace that queued it (webhook-span.ts); not shown to clients. */
  trace_parent: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    response_code: row.response_code,
    last_error: row.last_error,
    replay_of: row.replay_of,
    next_attempt_at: iso(row.next_attempt_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
