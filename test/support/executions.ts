/**
 * Executions as every test drives them, in-process (KaduClient) or over the network (RemoteClient):
 * make a task, run it, and poll an execution until it reaches the state a test waits for.
 */
export interface ExecutionClient {
  rest(method: 'get' | 'post', path: string, body?: unknown): PromiseLike<{ status: number; body: any }>;
}

/** Not queued or running any more: succeeded, failed, canceled, or waiting for input. */
export const settled = (e: any): boolean => !['queued', 'running'].includes(e.status);

/** Polls an execution until `done` accepts it; fails after `timeoutMs` naming its last status. */
export async function waitForExecution(
  client: ExecutionClient,
  id: string,
  done: (e: any) => boolean = settled,
  { timeoutMs = 15_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<any> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const res = await client.rest('get', `/api/v1/executions/${id}`);
    if (res.status === 200 && done(res.body.data)) return res.body.data;
    if (performance.now() > deadline)
      throw new Error(`execution ${id} still ${res.body?.data?.status ?? `${res.status} ${JSON.stringify(res.body)}`}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Creates a task of `kind` (201) and returns its id. */
export async function createTask(client: ExecutionClient, kind: string, costCap = 50, name = `${kind} task`) {
  const res = await client.rest('post', '/api/v1/tasks', { name, kind, cost_cap: costCap });
  if (res.status !== 201)
    throw new Error(`creating a ${kind} task answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A bank statement whose first line matches two ledger entries (L-1, L-2) and its second one (L-3). */
export const AMBIGUOUS_BANK_CSV = 'date,description,amount\n2026-11-02,ACME,-150.00\n2026-11-03,Rent,-900\n';
export const AMBIGUOUS_LEDGER_CSV =
  'id,date,description,amount\nL-1,2026-11-02,ACME inv 1,-150\nL-2,2026-11-02,ACME inv 2,-150\nL-3,2026-11-03,Rent,-900\n';

/**
 * A `reconcile` execution waiting for input: its first run asked which ledger entry bank line 1 is.
 * `upload` stores a CSV the way the caller's topology does and returns the file id.
 */
/** A reconcile input with two ambiguous lines (ACME and the fee): a run asks two questions. */
export const TWO_AMBIGUITIES_BANK_CSV =
  'date,description,amount\n2026-11-02,ACME,-150.00\n2026-11-04,Fees,-10\n2026-11-03,Rent,-900\n';
export const TWO_AMBIGUITIES_LEDGER_CSV =
  'id,date,description,amount\nL-1,2026-11-02,ACME inv 1,-150\nL-2,2026-11-02,ACME inv 2,-150\nL-3,2026-11-03,Rent,-900\nL-4,2026-11-04,Fee a,-10\nL-5,2026-11-04,Fee b,-10\n';

export async function awaitingReconcile(
  client: ExecutionClient & { waitForExecution(id: string, done?: (e: any) => boolean): Promise<any> },
  upload: (name: string, content: string) => Promise<string>,
  taskName = 'reconcile task',
): Promise<any> {
  const bank = await upload('bank.csv', AMBIGUOUS_BANK_CSV);
  const ledger = await upload('ledger.csv', AMBIGUOUS_LEDGER_CSV);
  const taskId = await createTask(client, 'reconcile', 50, taskName);
  const run = await client.rest('post', `/api/v1/tasks/${taskId}/run`, { input_file_ids: [bank, ledger] });
  if (run.status !== 202) throw new Error(`running ${taskName} answered ${run.status}: ${JSON.stringify(run.body)}`);
  return client.waitForExecution(run.body.data.id, (e) => e.status === 'awaiting_input');
}
