import type { Agent } from './agent.js';
import { CsvSummaryAgent } from './csv-summary.agent.js';
import { EchoAgent } from './echo.agent.js';
import { ReconcileAgent } from './reconcile.agent.js';

/** The task kinds this build runs, by the name tasks give in `kind`. */
export const AGENTS: Readonly<Record<string, Agent>> = {
  echo: new EchoAgent(),
  csv_summary: new CsvSummaryAgent(),
  reconcile: new ReconcileAgent(),
};

/** The kinds a run of which is taken up again after an outage (docs/kadu.md, "Executions"). */
export const RESUMABLE_KINDS: readonly string[] = Object.entries(AGENTS)
  .filter(([, agent]) => agent.resumable)
  .map(([kind]) => kind);
