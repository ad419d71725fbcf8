import { Logger } from '@nestjs/common';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { ExecutionQueue, QueuedRun } from './execution-queue.js';

const QUEUE_NAME = 'executions';

interface RunJob {
  executionId: string;
}

export interface BullQueueOptions {
  redisUrl: string;
  /** Key prefix, so deployments sharing a Redis server do not share work. */
  prefix: string;
  /**
   * How long a worker's hold on a job lasts without renewal. A worker that dies (or freezes)
   * loses its jobs after this; another replica's worker then receives them as redelivered.
   */
  lockMs: number;
}

/**
 * The distributed execution queue (spec README, "Distributed"): BullMQ on Redis. Every replica
 * enqueues into it and every replica's worker takes from it. BullMQ's lock and stalled-job check
 * are what make a dead worker's execution come back, flagged `redelivered`, to a live one.
 */
export class BullExecutionQueue implements ExecutionQueue {
  private readonly logger = new Logger('ExecutionQueue');
  // While Redis is away a command waits for one reconnection attempt, then fails: callers answer
  // 503, never hang. (The offline queue stays on: BullMQ sends commands as soon as it is built.)
  private readonly client: Redis;
  private readonly queue: Queue<RunJob>;
  private worker?: Worker<RunJob>;
  private workerClient?: Redis;
  private lastError = 0;

  constructor(private readonly options: BullQueueOptions) {
    this.client = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.client.on('error', (error) => this.warn('queue connection', error));
    this.queue = new Queue<RunJob>(QUEUE_NAME, { connection: this.client, prefix: options.prefix, skipWaitingForReady: true });
    this.queue.on('error', (error) => this.warn('queue', error));
  }

  async enqueue(executionId: string): Promise<void> {
    await this.queue.add('run', { executionId }, { removeOnComplete: true, removeOnFail: 100 });
  }

  start(worker: (run: QueuedRun) => Promise<void>, concurrency: number): Promise<void> {
    // The worker blocks on Redis, so it has its own connection, which BullMQ wants without a retry cap.
    const connection = new Redis(this.options.redisUrl, { maxRetriesPerRequest: null });
    connection.on('error', (error) => this.warn('worker connection', error));
    this.workerClient = connection;
    this.worker = new Worker<RunJob>(
      QUEUE_NAME,
      (job: Job<RunJob>) => worker({ executionId: job.data.executionId, redelivered: job.stalledCounter > 0 || job.attemptsStarted > 1 }),
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
    this.worker.on('failed', (job, error) => this.logger.error(`execution ${job?.data.executionId ?? '?'} crashed the worker: ${error.message}`));
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    // BullMQ leaves connections it was given open: they are ours to close.
    this.workerClient?.disconnect();
    this.client.disconnect();
  }

  depth(): Promise<number> {
    return this.queue.getWaitingCount();
  }

  async isHeld(executionId: string): Promise<boolean> {
    // Active jobs are few (the sum of the replicas' concurrency): a scan is cheap, and only done at start.
    const active = await this.queue.getActive();
    return active.some((job) => job.data.executionId === executionId);
  }

  private warn(what: string, error: Error): void {
    // Redis away means an error per reconnection attempt: one line every 10 s is enough.
    if (Date.now() - this.lastError < 10_000) return;
    this.lastError = Date.now();
    this.logger.warn(`${what}: ${error.message}`);
  }
}
