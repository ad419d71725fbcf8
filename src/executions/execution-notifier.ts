import { Inject, Injectable } from '@nestjs/common';
import { DATABASE, type Database } from '../db/database.js';

/** What changed besides the state: how many steps it has now, whether its steps changed. */
export interface ExecutionChange {
  readonly steps?: number;
  readonly stepsChanged?: boolean;
}

/** The execution as the notifier hears of it, its organisation's slug (the audience) and what changed. */
export type ExecutionChangeListener = (
  execution: { id: string; org_id: string; status: string },
  audience: string,
  change: ExecutionChange,
) => Promise<void>;

/**
 * The executions domain's own event: an execution changed — its state, a step added, a question,
 * its end — on this process (the worker's, the sweeper's, a caller's). Heard, in change order, by
 * whoever follows executions: the MCP wiring publishes the execution's resources and its task
 * status (src/mcp/execution-events.ts) on the event bus, heard by every replica's streams of the
 * execution's organisation only (the audience is its slug, as the token names it).
 */
@Injectable()
export class ExecutionNotifier {
  private readonly slugs = new Map<string, string>();
  private readonly listeners: ExecutionChangeListener[] = [];

  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async changed(
    execution: { id: string; org_id: string; status: string },
    change: ExecutionChange = {},
  ): Promise<void> {
    const audience = await this.slugOf(execution.org_id).catch(() => undefined);
    // Without the organisation no stream may hear it; polling still shows the change.
    if (audience === undefined) return;
    for (const listener of this.listeners) await listener(execution, audience, change);
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
