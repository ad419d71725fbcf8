import { Logger } from '@nestjs/common';
import { type Job, Queue, Worker } from 'bullmq';
import { createRedis, type RedisConnection, type RedisTopology } from '@kobana/nest-mcp/redis';
import type { ExecutionQueue, QueuedRun } from './execution-queue.js';

const QUEUE_NAME = 'executions';
const STOP_WITHIN_MS = 3000;

const within = (work: Promise<unknown> | undefined, ms: number): Promise<unknown> =>
  Promise.race([
    (work ?? Promise.resolve()).catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, ms).unref()),
  ]);

interface RunJob {
  executionId: string;
  trace?: Record<string, string>;
}

export interface BullQueueOptions {
  redis: string | RedisTopology;
  /** Key prefix, so deployments sharing a Redis server do not share work; hash-tagged in a cluster (`{…}`: one slot). */
  prefix: string;
  /**
   * How long a worker's hold on a job lasts without renewal. A worker that dies (or freezes)
   * loses its jobs after this; another replica's worker then receives them as redelivered.
   */
  lockMs: number;
  /** Bound on every command of the queue's own connection (enqueue, depth, hold checks). */
  timeoutMs: number;
}

// Job states in which the queue still holds the work (waiting for, or in the hands of, a worker).
const HELD_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * The distributed execution queue (spec README, "Distributed"): BullMQ on Redis. Every replica
 * enqueues into it and every replica's worker takes from it. BullMQ's lock and stalled-job check
 * are what make a dead worker's execution come back, flagged `redelivered`, to a live one.
 */
export class BullExecutionQueue implements ExecutionQueue {
  private readonly logger = new Logger('ExecutionQueue');
  // While Redis is away a command waits for one reconnection attempt, at most the bound, then fails:
  // callers answer 503, never hang. A connection that stops answering (partition) is dropped after
  // the bound and made again. (The offline queue stays on: BullMQ sends commands as soon as it is built.)
  private readonly client: RedisConnection;
  private readonly queue: Queue<RunJob>;
  private worker?: Worker<RunJob>;
  private workerClient?: RedisConnection;
  private lastError = 0;

  constructor(private readonly options: BullQueueOptions) {
    const bound = options.timeoutMs;
    const retryStrategy = (attempt: number): number => Math.min(attempt * 100, 1000);
    this.client = createRedis(options.redis, {
      maxRetriesPerRequest: 1,
      connectTimeout: bound,
      commandTimeout: bound,
      socketTimeout: bound,
      retryStrategy,
    });
    this.client.on('error', (error) => this.warn('queue connection', error));
    this.queue = new Queue<RunJob>(QUEUE_NAME, {
      connection: this.client,
      prefix: options.prefix,
      skipWaitingForReady: true,
    });
    this.queue.on('error', (error) => this.warn('queue', error));
  }

  /** One job per execution, named by its id: queuing it again while it waits or runs changes nothing. */
  async enqueue(executionId: string, trace?: Readonly<Record<string, string>>): Promise<void> {
    const data = { executionId, ...(trace ? { trace: { ...trace } } : {}) };
    await this.bounded(this.queue.add('run', data, { jobId: executionId, removeOnComplete: true, removeOnFail: true }));
  }

  async ensureQueued(executionId: string): Promise<boolean> {
    const state = await this.bounded(this.queue.getJobState(executionId));
    if (HELD_STATES.has(state)) return false;
    // A finished job that was kept would swallow the new one (same id): remove it first.
    if (state !== 'unknown') await this.bounded(this.queue.remove(executionId));
    await this.enqueue(executionId);
    return true;
  }

  start(worker: (run: QueuedRun) => Promise<void>, concurrency: number): Promise<void> {
    // The worker blocks on Redis, so it has its own connection, which BullMQ wants without a retry cap.
    const connection = createRedis(this.options.redis, {
      maxRetriesPerRequest: null,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    connection.on('error', (error) => this.warn('worker connection', error));
    this.workerClient = connection;
    this.worker = new Worker<RunJob>(
      QUEUE_NAME,
      (job: Job<RunJob>) =>
        worker({
          executionId: job.data.executionId,
          redelivered: job.stalledCounter > 0 || job.attemptsStarted > 1,
          trace: job.data.trace,
        }),
      {
        connection,
        prefix: this.options.prefix,
        concurrency: Math.max(1, concurrency),
        lockDuration: this.options.lockMs,
        stalledInterval: this.options.lockMs,
        maxStalledCount: 1,
      },
    );
    this.worker.on('error', (error) => this.warn('worker', error));
    this.worker.on('failed', (job, error) =>
      this.logger.error(`execution ${job?.data.executionId ?? '?'} crashed the worker: ${error.message}`),
    );
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    // Bounded: with Redis away BullMQ's close waits for a connection that may never come back.
    // The worker's current execution is handed back by the runner before this (after its step).
    await within(this.worker?.close(), STOP_WITHIN_MS);
    await within(this.queue.close(), STOP_WITHIN_MS);
    // BullMQ leaves connections it was given open: they are ours to close.
    this.workerClient?.disconnect();
    this.client.disconnect();
  }

  depth(): Promise<number> {
    return this.bounded(this.queue.getWaitingCount());
  }

  /**
   * Held = a live worker's lock on the execution's job exists. The lock is renewed while its worker
   * lives and lapses `lockMs` after it dies (BullMQ's own key, `<queue key>:<job id>:lock`).
   */
  async isHeld(executionId: string): Promise<boolean> {
    return (await this.bounded(this.client.exists(`${this.queue.toKey(executionId)}:lock`))) === 1;
  }

  private bounded<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the queue did not answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
    });
    promise.catch(() => undefined); // it may still settle after the bound
    return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
  }

  private warn(what: string, error: Error): void {
    // Redis away means an error per reconnection attempt: one line every 10 s is enough.
    if (Date.now() - this.lastError < 10_000) return;
    this.lastError = Date.now();
    this.logger.warn(`${what}: ${error.message}`);
  }
}
