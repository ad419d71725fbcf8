import { Logger } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';

/** What a worker is handed: the execution, and whether an earlier worker took it and was lost. */
export interface QueuedRun {
  readonly executionId: string;
  /** True when the queue hands out again work whose worker stopped holding it (died, froze). */
  readonly redelivered: boolean;
  /** Trace context of the request that queued it (W3C `traceparent`…), so its spans can link to it. */
  readonly trace?: Readonly<Record<string, string>>;
}

/**
 * Where queued executions wait for a worker. The embedded topology runs them in-process
 * (`InMemoryExecutionQueue`); the distributed one shares a BullMQ queue on Redis
 * (`BullExecutionQueue`), so any replica's worker can run any replica's executions.
 */
export interface ExecutionQueue {
  /** Rejects when the queue cannot be reached; the caller answers 503. `trace` travels with the work. */
  enqueue(executionId: string, trace?: Readonly<Record<string, string>>): Promise<void>;
  /** Starts feeding work to `worker`, at most `concurrency` at a time in this process. */
  start(worker: (run: QueuedRun) => Promise<void>, concurrency: number): Promise<void>;
  /** Stops taking work and waits for what this process is running. */
  stop(): Promise<void>;
  /** Executions waiting for a worker (all replicas). Rejects when the queue cannot be reached. */
  depth(): Promise<number>;
  /** Whether a live worker (of any replica) still holds this execution. Rejects when the queue cannot be reached. */
  isHeld(executionId: string): Promise<boolean>;
  /** Queues the execution unless the queue already holds it (waiting or running); true when it had to. */
  ensureQueued(executionId: string): Promise<boolean>;
}

export const EXECUTION_QUEUE = Symbol('EXECUTION_QUEUE');

export class InMemoryExecutionQueue implements ExecutionQueue {
  private readonly logger = new Logger('ExecutionQueue');
  private readonly waiting: string[] = [];
  private readonly traces = new Map<string, Readonly<Record<string, string>>>();
  private readonly running = new Map<string, Promise<void>>();
  private worker?: (run: QueuedRun) => Promise<void>;
  private concurrency = 1;
  private stopped = false;

  enqueue(executionId: string, trace?: Readonly<Record<string, string>>): Promise<void> {
    if (!this.waiting.includes(executionId)) {
      this.waiting.push(executionId);
      if (trace) this.traces.set(executionId, trace);
      this.pump();
    }
    return Promise.resolve();
  }

  start(worker: (run: QueuedRun) => Promise<void>, concurrency: number): Promise<void> {
    this.worker = worker;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running.values()]);
  }

  depth(): Promise<number> {
    return Promise.resolve(this.waiting.length);
  }

  /** One process: only what this process is running is held (nothing, before `start`). */
  isHeld(executionId: string): Promise<boolean> {
    return Promise.resolve(this.running.has(executionId));
  }

  async ensureQueued(executionId: string): Promise<boolean> {
    if (this.running.has(executionId) || this.waiting.includes(executionId)) return false;
    await this.enqueue(executionId);
    return true;
  }

  private pump(): void {
    while (!this.stopped && this.worker && this.running.size < this.concurrency && this.waiting.length) {
      const id = this.waiting.shift()!;
      const trace = this.traces.get(id);
      this.traces.delete(id);
      const job = this.worker({ executionId: id, redelivered: false, trace })
        .catch((error: unknown) => this.logger.error(`execution ${id} crashed the worker: ${describeValue(error)}`))
        .finally(() => {
          this.running.delete(id);
          setImmediate(() => this.pump());
        });
      this.running.set(id, job);
    }
  }
}
