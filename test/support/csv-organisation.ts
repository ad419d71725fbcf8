import { createHash } from 'node:crypto';
import { RemoteClient } from './remote-client.js';
import type { ReplicaSet } from './replicas.js';

/**
 * A member of its own organisation on a replica set (each plan runs two executions at once), with
 * a CSV of `rows` numbers uploaded and a `csv_summary` task: one step to read, one per row, one to
 * write — long runs whose steps and cost a test can count.
 */
export async function csvOrganisation(
  set: ReplicaSet,
  org: string,
  rows: number,
): Promise<{ client: RemoteClient; taskId: string; fileId: string }> {
  const client = new RemoteClient(set.url, await set.token({ org }), await set.token({ org, audience: 'api' }));
  const bytes = Buffer.from(`n\n${Array.from({ length: rows }, (_, i) => i).join('\n')}\n`);
  const created = await client.rest('post', '/api/v1/files', {
    name: 'rows.csv',
    content_type: 'text/csv',
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
  // Said here when the upload or its confirmation fails, not later as a run refused for its file.
  const put = await fetch(created.body.data.upload_url, {
    method: 'PUT',
    headers: { 'Content-Type': 'text/csv' },
    body: bytes,
  });
  if (!put.ok) throw new Error(`the upload of ${org}'s CSV answered ${put.status}: ${await put.text()}`);
  const confirmed = await client.rest('post', `/api/v1/files/${created.body.data.file.id}/confirm`);
  if (confirmed.status !== 200)
    throw new Error(`confirming ${org}'s CSV answered ${confirmed.status}: ${JSON.stringify(confirmed.body)}`);
  const task = (await client.rest('post', '/api/v1/tasks', { name: 'slow sum', kind: 'csv_summary', cost_cap: 100 }))
    .body.data;
  return { client, taskId: task.id, fileId: created.body.data.file.id };
}

/** The steps a csv_summary run of `rows` rows records, each once and in order, and what it costs. */
export const csvSummarySteps = (rows: number): { kinds: string[]; cost: number } => ({
  kinds: ['read', ...Array.from({ length: rows }, () => 'row'), 'write'],
  cost: 1 + rows,
});

/** The steps an execution recorded, in order, with their sequence numbers. */
export async function stepsOf(client: RemoteClient, id: string): Promise<{ seq: number; kind: string }[]> {
  const body = (await client.rest('get', `/api/v1/executions/${id}/steps?limit=100`)).body;
  return (body.data as { seq: number; kind: string }[]).map(({ seq, kind }) => ({ seq, kind }));
}
