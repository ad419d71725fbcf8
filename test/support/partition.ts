import { expect } from 'vitest';
import type { RemoteClient, RemoteResponse } from './remote-client.js';

/** One request made while a dependency was cut, and what came back. */
export interface Probe {
  readonly what: string;
  readonly startedAt: number;
  readonly sentId?: string;
  readonly answer: RemoteResponse;
}

export interface PartitionRun {
  readonly probes: Probe[];
  /** From the end of the partition to the first request that succeeded again. */
  readonly recoveredAfterMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failed = (error: unknown): RemoteResponse => ({
  status: 0,
  headers: new Headers(),
  body: String(error),
  ms: Number.NaN,
});

/**
 * Cuts a dependency for `durationMs` while two callers keep sending requests through the
 * balancer (REST reads and runs, MCP tool calls with their own ids, readiness checks), then
 * restores it and waits for the first request to succeed again — nobody restarts anything.
 */
export async function underPartition(
  client: RemoteClient,
  options: { durationMs: number; taskId: string; cut: () => unknown; restore: () => unknown },
): Promise<PartitionRun> {
  const probes: Probe[] = [];
  let open = true;
  const caller = async (lane: number): Promise<void> => {
    for (let i = 0; open && i < 5000; i++) {
      const startedAt = Date.now();
      const sentId = `p${lane}-${i}`;
      const kind = i % 4;
      const answer =
        kind === 0
          ? await client.rest('get', `/api/v1/tasks/${options.taskId}`).catch(failed)
          : kind === 1
            ? await client
                .mcp(
                  '2026',
                  'tools/call',
                  { name: 'kadu_tasks_get', arguments: { task_id: options.taskId } },
                  { id: sentId },
                )
                .catch(failed)
            : kind === 2
              ? await client.rest('post', `/api/v1/tasks/${options.taskId}/run`, { input: { lane } }).catch(failed)
              : await client.rest('get', '/health/ready').catch(failed);
      probes.push({
        what: ['rest get', 'mcp call', 'rest run', 'ready'][kind]!,
        startedAt,
        answer,
        ...(kind === 1 ? { sentId } : {}),
      });
      await sleep(100);
    }
  };
  await options.cut();
  const cutAt = Date.now();
  const callers = [caller(1), caller(2)];
  await sleep(options.durationMs);
  open = false;
  await Promise.all(callers);
  await options.restore();
  const restoredAt = Date.now();
  for (;;) {
    const res = await client.rest('get', `/api/v1/tasks/${options.taskId}`).catch(failed);
    if (res.status === 200) break;
    if (Date.now() - restoredAt > 30_000)
      throw new Error(`no recovery 30 s after the partition: ${res.status} ${JSON.stringify(res.body)}`);
    await sleep(100);
  }
  return { probes: probes.filter((p) => p.startedAt >= cutAt), recoveredAfterMs: Date.now() - restoredAt };
}

/** One line for the test log: what was measured. */
export function summary(label: string, run: PartitionRun): string {
  const slowest = Math.max(...run.probes.map((p) => p.answer.ms));
  return `${label}: ${run.probes.length} requests during the partition, slowest answer ${slowest} ms, service back ${run.recoveredAfterMs} ms after it ended`;
}

/**
 * What every request made during the partition must have got: 503 with Retry-After, in the
 * request's own envelope (its JSON-RPC id, or the API's error body), within the bound plus 1 s.
 */
export function expectRefusedWithinBound(probes: Probe[], boundMs: number, codes: string[]): void {
  const slow = probes.filter((p) => !(p.answer.ms <= boundMs + 1000));
  expect(slow.map((p) => `${p.what} ${p.answer.status} in ${p.answer.ms} ms`)).toEqual([]);
  for (const { what, sentId, answer } of probes) {
    expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    if (what === 'ready') expect(answer.body.status).toBe('unavailable');
    else if (sentId)
      expect(answer.body).toMatchObject({
        jsonrpc: '2.0',
        id: sentId,
        error: { code: -32603, data: { retry_after: 5 } },
      });
    else expect(codes, `${what}: ${JSON.stringify(answer.body)}`).toContain(answer.body.errors[0].code);
  }
}
