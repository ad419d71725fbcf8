import type { JsonRpcId } from '../protocol/index.js';
import { SseChunk } from './sse-chunk.js';

/** A stream as the queue sees it: its subscription id, and whether it still hears events. */
export interface FanOutTarget {
  readonly id: JsonRpcId;
  readonly ended: boolean;
}

/** One event being written to the streams that were to hear it when it arrived. */
interface FanOut<S extends FanOutTarget> {
  readonly bytes: (id: JsonRpcId) => Buffer;
  /** The event's chunk per subscription id (many streams share one: clients often number listen 1). */
  readonly chunks: Map<JsonRpcId, SseChunk>;
  readonly targets: S[];
  next: number;
}

/**
 * The events a process is writing to its listen streams (listen-streams.ts), oldest first. Each is
 * serialized once per subscription id and written to `batch` streams per event-loop turn, so that
 * requests interleave with a large fan-out; one that arrives mid-fan-out waits behind it, so every
 * stream hears the events in publish order.
 */
export class FanOutQueue<S extends FanOutTarget> {
  private readonly fanOuts: FanOut<S>[] = [];
  private nextBatch?: NodeJS.Immediate;

  constructor(
    private readonly batch: number,
    private readonly write: (stream: S, chunk: SseChunk) => void,
  ) {}

  /** Queues an event for `targets`: behind a fan-out in progress it waits its turn; otherwise its first batch goes out now. */
  push(bytes: (id: JsonRpcId) => Buffer, targets: S[]): void {
    this.fanOuts.push({ bytes, chunks: new Map(), targets, next: 0 });
    if (!this.nextBatch) this.writeBatches(this.batch);
  }

  /** Writes everything queued at once (at shutdown, before each stream's end result). */
  drain(): void {
    clearImmediate(this.nextBatch);
    this.nextBatch = undefined;
    this.writeBatches(Infinity);
  }

  /** Writes up to `budget` deliveries, oldest event first, and schedules the rest for the next turn. */
  private writeBatches(budget: number): void {
    this.nextBatch = undefined;
    while (budget > 0 && this.fanOuts.length) {
      const fanOut = this.fanOuts[0];
      while (budget > 0 && fanOut.next < fanOut.targets.length) {
        const stream = fanOut.targets[fanOut.next++];
        budget--;
        // A stream that ended meanwhile (closed, expired, let go) is skipped.
        if (stream.ended) continue;
        let chunk = fanOut.chunks.get(stream.id);
        if (!chunk) fanOut.chunks.set(stream.id, (chunk = new SseChunk(fanOut.bytes(stream.id))));
        this.write(stream, chunk);
      }
      if (fanOut.next === fanOut.targets.length) this.fanOuts.shift();
    }
    if (this.fanOuts.length) this.nextBatch = setImmediate(() => this.writeBatches(this.batch));
  }
}
