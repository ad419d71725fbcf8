import { Inject, Injectable } from '@nestjs/common';
import { newId } from '../common/ids.js';
import { DATABASE, type Database } from '../db/database.js';
import { type ExecutionRow, executionView } from '../executions/execution.view.js';
import { queuingTraceParent } from '../telemetry/webhook-span.js';
import { DeliveryWorker } from './delivery-worker.js';

/** Turns an execution event into one pending delivery per destination webhook of its task. */
@Injectable()
export class WebhookEvents {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly worker: DeliveryWorker,
  ) {}

  async emit(execution: ExecutionRow, event: string): Promise<void> {
    const [task] = await this.db.query<{ destinations: { type: string; webhook_id: string }[] }>(
      'select destinations from tasks where id = $1',
      [execution.task_id],
    );
    const ids = (task?.destinations ?? []).filter((d) => d.type === 'webhook').map((d) => d.webhook_id);
    if (!ids.length) return;
    const payload = JSON.stringify({
      event,
      created_at: new Date().toISOString(),
      data: { execution: executionView(execution) },
    });
    const hooks = await this.db.query<{ id: string; events: string[] }>(
      'select id, events from webhooks where org_id = $1 and id = any($2::text[]) and active and deleted_at is null',
      [execution.org_id, ids],
    );
    for (const hook of hooks) {
      if (hook.events.length && !hook.events.includes(event)) continue;
      await this.db.query(
        `insert into webhook_deliveries (id, org_id, webhook_id, event, payload, status, next_attempt_at, trace_parent)
         values ($1, $2, $3, $4, $5::jsonb, 'pending', now(), $6)`,
        [newId(), execution.org_id, hook.id, event, payload, queuingTraceParent()],
      );
    }
    this.worker.kick();
  }
}
