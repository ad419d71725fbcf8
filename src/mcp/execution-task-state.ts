import { InputRequests, type McpContent, type McpTaskState } from '@kobana/nest-mcp';
import type { ExecutionProgress } from '../executions/execution-progress.js';
import type { OpenQuestion } from '../executions/execution-questions.js';
import { executionLink } from '../executions/execution-uri.js';
import { executionView } from '../executions/execution.view.js';
import { fileUri } from '../files/file-uri.js';

/** How often to poll, by what the execution is doing: queued work waits on the queue, a question on a person. */
const POLL_MS: Record<string, number> = { echo: 500, csv_summary: 1000, reconcile: 2000 };
const POLL_QUEUED_MS = 2000;
const POLL_WAITING_MS = 5000;

/** An execution as its MCP task shows it (tasks.md §Task States); `questions`: what it asks, if it awaits input. */
export function executionTaskState(row: ExecutionProgress, questions: readonly OpenQuestion[]): McpTaskState {
  const base = {
    id: row.id,
    statusMessage: statusMessage(row),
    createdAt: row.created_at,
    lastUpdatedAt: row.updated_at,
    // Kadu keeps executions until the organisation is deleted: no expiry to announce.
    ttlMs: null,
  };
  switch (row.status) {
    case 'queued':
      return { ...base, status: 'working', pollIntervalMs: POLL_QUEUED_MS };
    case 'running':
      return { ...base, status: 'working', pollIntervalMs: POLL_MS[row.kind] ?? 1000 };
    case 'awaiting_input':
      return {
        ...base,
        status: 'input_required',
        pollIntervalMs: POLL_WAITING_MS,
        inputRequests: Object.fromEntries(questions.map((q) => [q.key, InputRequests.form(q.message, q.schema)])),
      };
    case 'canceled':
      return { ...base, status: 'cancelled' };
    default:
      // A failed execution is a business outcome, not a JSON-RPC error: completed with isError.
      return { ...base, status: 'completed', result: result(row) };
  }
}

/**
 * What kadu_executions_get shows for it, with the execution and its output files as resource
 * links; a succeeded one also as structuredContent (kadu_tasks_run lists an outputSchema, issue 31).
 */
function result(row: ExecutionProgress): Record<string, unknown> {
  const answer = { data: executionView(row) };
  const content: McpContent[] = [
    { type: 'text', text: JSON.stringify(answer) },
    executionLink(row.id),
    ...row.output_file_ids.map((id): McpContent => ({
      type: 'resource_link',
      uri: fileUri(id),
      name: 'output_file',
      title: `Output file ${id}`,
    })),
  ];
  return row.status === 'failed' ? { content, isError: true } : { content, structuredContent: answer };
}

function statusMessage(row: ExecutionProgress): string {
  const cost = `${row.cost_spent} of ${row.cost_cap} cost units spent`;
  const steps = `${row.step_count} step${row.step_count === 1 ? '' : 's'}`;
  const last = row.last_step ? ` Last step: ${row.last_step}.` : '';
  switch (row.status) {
    case 'queued':
      return `Queued; ${steps} so far, ${cost}.${last}`;
    case 'running':
      return `Running; ${steps} so far, ${cost}.${last}`;
    case 'awaiting_input':
      return `Waiting for your answer; ${steps}, ${cost}.${last}`;
    case 'succeeded':
      return `Succeeded after ${steps}; ${cost}.`;
    case 'failed':
      return `Failed after ${steps}: ${row.error?.message ?? 'unknown error'}; ${cost}.`;
    default:
      return `Cancelled after ${steps}; ${cost}.`;
  }
}
