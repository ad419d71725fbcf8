import { Inject, Injectable } from '@nestjs/common';
import { McpEvents } from '@kobana/nest-mcp';
import { DATABASE, type Database } from '../db/database.js';
import { executionStepsUri, executionUri } from './execution-uri.js';

/** The `_meta` keys a Kadu `notifications/resources/updated` carries, so a listener sees the order without a read. */
export const STATUS_META = 'com.kobana.kadu/status';
export const STEPS_META = 'com.kobana.kadu/steps';

/** The execution as the notifier hears of it, and its organisation's slug (the audience). */
export type ExecutionChangeListener = (
  execution: { id: string; org_id: string; status: string },
  audience: string,
) => Promise<void>;

/**
 * Tells `subscriptions/listen` streams that an execution changed: its resource when its state
 * changes, a step is added, it needs input or it ends, and its steps resource when steps change;
 * then its listeners (the execution's task status, src/mcp/execution-tasks.ts).
 * Published on the event bus by whichever replica made the change; heard only by streams of the
 * execution's organisation (the audience is its slug, as the token names it).
 */
@Injectable()
export class ExecutionNotifier {
  private readonly slugs = new Map<string, string>();
  private readonly listeners: ExecutionChangeListener[] = [];

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly events: McpEvents,
  ) {}

  async changed(
    execution: { id: string; org_id: string; status: string },
    change: { steps?: number; stepsChanged?: boolean } = {},
  ): Promise<void> {
    const audience = await this.slugOf(execution.org_id).catch(() => undefined);
    // Without the organisation no stream may hear it; polling still shows the change.
    if (audience === undefined) return;
    const meta = {
      [STATUS_META]: execution.status,
      ...(change.steps === undefined ? {} : { [STEPS_META]: change.steps }),
    };
    await this.events.resourceUpdated(executionUri(execution.id), { audience, meta });
    if (change.stepsChanged)
      await this.events.resourceUpdated(executionStepsUri(execution.id), { audience, meta });
    // Then what else follows the execution (its task status): after the resource, in change order.
    for (const listener of this.listeners) await listener(execution, audience);
  }

  /** Hears every change this process makes to an execution (the worker's, the sweeper's, a caller's). */
  onChanged(listener: ExecutionChangeListener): void {
    this.listeners.push(listener);
  }

  private async slugOf(orgId: string): Promise<string | undefined> {
    const known = this.slugs.get(orgId);
    if (known) return known;
    const [row] = await this.db.query<{ slug: string }>('select slug from organizations where id = $1', [orgId]);
    // Slugs never change: a bounded cache spares the query on every step.
    if (row) {
      if (this.slugs.size > 10_000) this.slugs.clear();
      this.slugs.set(orgId, row.slug);
    }
    return row?.slug;
  }
}
