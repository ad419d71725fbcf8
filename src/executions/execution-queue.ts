import { Logger } from '@nestjs/common';

/**
 * Where queued executions wait for a worker. The embedded topology runs them in-process; a
 * Redis-backed implementation (BullMQ) plugs in behind the same interface.
 */
export interface ExecutionQueue {
  enqueue(executionId: string): void;
  /** Starts feeding ids to `worker`, at most `concurrency` at a time. */
  start(worker: (executionId: string) => Promise<void>, concurrency: number): void;
  /** Stops taking work and waits for what is running. */
  stop(): Promise<void>;
  depth(): number;
}

export const EXECUTION_QUEUE = Symbol('EXECUTION_QUEUE');

export class InMemoryExecutionQueue implements ExecutionQueue {
  private readonly logger = new Logger('ExecutionQueue');
  private readonly waiting: string[] = [];
  private readonly running = new Set<Promise<void>>();
  private worker?: (id: string) => Promise<void>;
  private concurrency = 1;
  private stopped = false;

  enqueue(executionId: string): void {
    if (this.waiting.includes(executionId)) return;
    this.waiting.push(executionId);
    this.pump();
  }

  start(worker: (executionId: string) => Promise<void>, concurrency: number): void {
    this.worker = worker;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.running]);
  }

  depth(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (!this.stopped && this.worker && this.running.size < this.concurrency && this.waiting.length) {
      const id = this.waiting.shift()!;
      const job = this.worker(id)
        .catch((error: unknown) => this.logger.error(`execution ${id} crashed the worker: ${String(error)}`))
        .finally(() => {
          this.running.delete(job);
          setImmediate(() => this.pump());
        });
      this.running.add(job);
    }
  }
}
