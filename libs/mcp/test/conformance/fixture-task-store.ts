import { randomUUID } from 'node:crypto';
import type {
  McpInputRound,
  McpTaskCaller,
  McpTaskCreation,
  McpTaskRef,
  McpTaskSource,
  McpTaskState,
} from '@kobana/nest-mcp';

type JsonObject = Record<string, unknown>;

/** What a job does with the answers to its outstanding input requests. */
type OnAnswers = (job: FixtureJob, inputs: McpInputRound, keys: readonly string[]) => void;

export interface FixtureJob {
  id: string;
  status: McpTaskState['status'];
  statusMessage?: string;
  createdAt: Date;
  lastUpdatedAt: Date;
  result?: JsonObject;
  error?: { code: number; message: string };
  inputRequests?: Record<string, JsonObject>;
  onAnswers?: OnAnswers;
  onCancel?: () => void;
}

const TTL_MS = 10 * 60_000;

/**
 * The conformance fixture's task store. The fixture is one process with no database, so its jobs
 * live in a Map: that is the fixture's own durable store, standing for an app's database (libs/mcp
 * keeps nothing). A job is recorded before the tool returns its id, so `tasks/get` finds it at once.
 */
export class FixtureTaskStore implements McpTaskSource {
  private readonly jobs = new Map<string, FixtureJob>();

  begin(status: 'working' | 'input_required' = 'working'): FixtureJob {
    const now = new Date();
    const job: FixtureJob = { id: randomUUID(), status, createdAt: now, lastUpdatedAt: now };
    this.jobs.set(job.id, job);
    // Forget it once its lifetime is over (the TTL it advertises).
    setTimeout(() => this.jobs.delete(job.id), TTL_MS).unref();
    return job;
  }

  finish(job: FixtureJob, outcome: { result: JsonObject } | { error: { code: number; message: string } }): void {
    if (job.status === 'cancelled') return;
    Object.assign(
      job,
      'result' in outcome
        ? { status: 'completed', result: outcome.result }
        : { status: 'failed', error: outcome.error, statusMessage: outcome.error.message },
    );
    job.inputRequests = undefined;
    job.lastUpdatedAt = new Date();
  }

  ask(job: FixtureJob, requests: Record<string, JsonObject>, onAnswers: OnAnswers): void {
    Object.assign(job, { status: 'input_required', inputRequests: requests, onAnswers, lastUpdatedAt: new Date() });
  }

  /** Marks answered keys satisfied; the job goes back to work when none is left. */
  satisfy(job: FixtureJob, keys: readonly string[]): void {
    for (const key of keys) delete job.inputRequests?.[key];
    if (job.inputRequests && Object.keys(job.inputRequests).length === 0)
      Object.assign(job, { status: 'working', inputRequests: undefined });
    job.lastUpdatedAt = new Date();
  }

  async create(creation: McpTaskCreation): Promise<McpTaskState> {
    const id = (creation.value as { jobId?: string } | undefined)?.jobId;
    const job = id ? this.jobs.get(id) : undefined;
    if (!job) throw new Error(`${creation.tool} did not start a job`);
    return this.state(job);
  }

  async get(ref: McpTaskRef, _caller: McpTaskCaller): Promise<McpTaskState | undefined> {
    const job = this.jobs.get(ref.id);
    return job && this.state(job);
  }

  async update(ref: McpTaskRef, _caller: McpTaskCaller, inputs: McpInputRound, keys: readonly string[]): Promise<void> {
    const job = this.jobs.get(ref.id);
    if (job?.status === 'input_required') job.onAnswers?.(job, inputs, keys);
  }

  async cancel(ref: McpTaskRef): Promise<void> {
    const job = this.jobs.get(ref.id);
    if (!job || ['completed', 'failed', 'cancelled'].includes(job.status)) return;
    job.onCancel?.();
    Object.assign(job, {
      status: 'cancelled',
      inputRequests: undefined,
      statusMessage: 'Cancelled by the client',
      lastUpdatedAt: new Date(),
    });
  }

  private state(job: FixtureJob): McpTaskState {
    return {
      id: job.id,
      status: job.status,
      ...(job.statusMessage ? { statusMessage: job.statusMessage } : {}),
      createdAt: job.createdAt,
      lastUpdatedAt: job.lastUpdatedAt,
      ttlMs: TTL_MS,
      pollIntervalMs: 200,
      ...(job.result ? { result: job.result } : {}),
      ...(job.error ? { error: job.error } : {}),
      ...(job.inputRequests ? { inputRequests: { ...job.inputRequests } } : {}),
    };
  }
}
