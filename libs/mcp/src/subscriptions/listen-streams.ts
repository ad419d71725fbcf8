import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Socket } from 'node:net';
import type { Response } from 'express';
import { MCP_EVENT_BUS, type McpEventBus } from '../events/mcp-event-bus.js';
import { McpConfig } from '../mcp-config.js';
import {
  acknowledgement,
  describeValue,
  filterWants,
  type JsonRpcId,
  listenEnd,
  SSE_HEARTBEAT,
  sseEventBytes,
  sseMessage,
  type SubscriptionEvent,
  type SubscriptionFilter,
} from '../protocol/index.js';
import { FollowedIndex } from './followed-index.js';
import { FanOutQueue } from './fan-out-queue.js';
import { chunkSocket, SseChunk } from './sse-chunk.js';

/** One open `subscriptions/listen` stream on this process. */
export interface ListenStream {
  readonly id: JsonRpcId;
  readonly principalKey: string;
  readonly audience?: string;
  readonly filter: SubscriptionFilter;
  /** When the caller's token expires (ms since the epoch): the stream ends then. */
  readonly expiresAt?: number;
  readonly res: Response;
}

type EndReason = 'expired' | 'shutdown' | 'overflow';

interface Open extends ListenStream {
  timer?: NodeJS.Timeout;
  /** No longer delivered to; its slot stays counted until its connection has closed. */
  ended: boolean;
  /** Cuts the connection of an ended stream whose last message did not leave in time. */
  cut?: NodeJS.Timeout;
  /** Where its messages are written as pre-framed chunks (sse-chunk.ts); else through `res`. */
  socket?: Socket;
}

const HEARTBEAT = new SseChunk(Buffer.from(SSE_HEARTBEAT));

/**
 * The listen streams this process holds. One bus subscription per process; events are fanned out
 * here, by URI or task id through an index, to the streams whose honoured filter and audience
 * admit them — the per-listener authorization at delivery.
 *
 * Each event is serialized once (the stream's id spliced in) and written in batches of
 * `deliveryBatch` streams per event-loop turn, in arrival order (fan-out-queue.ts).
 */
@Injectable()
export class ListenStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpListen');
  private readonly streams = new Set<Open>();
  private readonly followed = new FollowedIndex<Open>();
  private readonly perPrincipal = new Map<string, number>();
  private readonly queue: FanOutQueue<Open>;
  private heartbeat?: NodeJS.Timeout;
  private stopBus?: () => void;
  private retry?: NodeJS.Timeout;
  private closed = false;
  readonly enabled: boolean;
  readonly maxStreamsPerPrincipal: number;
  readonly maxSubscriptionsPerStream: number;
  private readonly heartbeatMs: number;
  private readonly maxBufferedBytes: number;
  private readonly closeTimeoutMs: number;

  constructor(
    config: McpConfig,
    @Inject(MCP_EVENT_BUS) private readonly bus: McpEventBus,
  ) {
    const listen = config.settings.listen;
    this.enabled = listen.enabled;
    this.maxStreamsPerPrincipal = listen.maxStreamsPerPrincipal;
    this.maxSubscriptionsPerStream = listen.maxSubscriptionsPerStream;
    this.heartbeatMs = listen.heartbeatMs;
    this.maxBufferedBytes = listen.maxBufferedBytes;
    this.queue = new FanOutQueue(listen.deliveryBatch, (stream, chunk) => this.write(stream, chunk));
    this.closeTimeoutMs = listen.closeTimeoutMs;
  }

  /** What a 429 for too many streams says to wait: the longest an ended stream still holds its slot. */
  get retryAfterSec(): number {
    return Math.max(1, Math.ceil(this.closeTimeoutMs / 1000));
  }

  /**
   * Joins the bus. A bus that cannot be reached (Redis away) never stops the app from starting:
   * the subscription is retried every second meanwhile, and streams hear events once it holds.
   */
  async onModuleInit(): Promise<void> {
    if (this.enabled) await this.join();
  }

  private async join(): Promise<void> {
    if (this.closed) return;
    try {
      this.stopBus = await this.bus.subscribe((event) => this.deliver(event));
      if (this.closed) this.stopBus();
    } catch (error) {
      this.logger.warn(`listen streams hear no events yet: ${describeValue(error)}; retrying`);
      this.retry = setTimeout(() => void this.join(), 1000);
      this.retry.unref();
    }
  }

  /** A graceful stop (Nest closes the app before the HTTP server): every stream gets its end result. */
  beforeApplicationShutdown(): void {
    this.endAll();
  }

  /** Ends every stream with the listen result; the app calls it before draining its HTTP server. */
  endAll(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.stopBus?.();
    this.stopBus = undefined;
    // The events already heard are written before the end result, which stays the last message.
    this.queue.drain();
    for (const stream of [...this.streams]) this.end(stream, 'shutdown');
  }

  /** How many streams the principal holds on this process: open ones, and ended ones whose connection is still open. */
  countOf(principalKey: string): number {
    return this.perPrincipal.get(principalKey) ?? 0;
  }

  get size(): number {
    return this.streams.size;
  }

  /** Answers the request with the SSE stream: headers, the acknowledgement, then events until it ends. */
  open(stream: ListenStream): void {
    const open: Open = { ...stream, ended: false };
    const { res } = stream;
    // Gone while its checks ran: its 'close' has fired already, so it must not be registered.
    if (res.destroyed) return;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      // Reverse proxies (nginx) would otherwise hold the events back.
      'X-Accel-Buffering': 'no',
    });
    res.req.socket.setNoDelay(true);
    this.streams.add(open);
    this.perPrincipal.set(open.principalKey, this.countOf(open.principalKey) + 1);
    this.followed.add(open);
    // The client closing the stream (or the connection dropping) ends the subscription; the
    // connection closing is also what frees the slot of a stream the server ended.
    res.once('close', () => this.release(open));
    // The first write sends the headers with it; then Node has decided the framing.
    res.write(sseMessage(acknowledgement(open.id, open.filter)));
    open.socket = chunkSocket(res);
    if (open.expiresAt !== undefined) {
      // setTimeout fires at once past 2^31-1 ms: a far expiry is capped (~24 days), never immediate.
      open.timer = setTimeout(
        () => this.end(open, 'expired'),
        Math.min(Math.max(0, open.expiresAt - Date.now()), 2 ** 31 - 1),
      );
      open.timer.unref();
    }
    this.heartbeat ??= setInterval(() => this.beat(), this.heartbeatMs).unref();
  }

  private deliver(event: SubscriptionEvent): void {
    if (this.closed) return;
    // The URI and task indexes already chose the streams that follow it; only broadcast kinds
    // (list changes) need the filter. The audience is checked for every stream.
    const followers = this.followed.followersOf(event);
    const indexed = followers.indexed;
    const candidates = indexed ? followers.streams : this.streams;
    if (!candidates) return;
    const targets: Open[] = [];
    for (const stream of candidates) {
      if (!indexed && !filterWants(stream.filter, event)) continue;
      if (event.audience !== undefined && event.audience !== stream.audience) continue;
      targets.push(stream);
    }
    if (!targets.length) return;
    this.queue.push(sseEventBytes(event), targets);
  }

  private beat(): void {
    for (const stream of this.streams) this.write(stream, HEARTBEAT);
  }

  private write(stream: Open, chunk: SseChunk): void {
    if (stream.ended) return;
    // A client that stops reading would make the process buffer without bound: it is let go.
    if (stream.res.writableLength > this.maxBufferedBytes) return this.end(stream, 'overflow');
    if (!stream.socket) stream.res.write(chunk.payload);
    // A socket going away fires 'close' (which releases the stream) soon: nothing to write meanwhile.
    else if (stream.socket.writable) stream.socket.write(chunk.framed);
  }

  /**
   * The server ends a stream: the spec's graceful end (the empty listen result), then the
   * connection closes. A client that does not read it within `closeTimeoutMs` (one that stopped
   * reading, above all) has its connection reset, which also drops the bytes the kernel still
   * holds for it; until the connection has closed, the stream's slot stays counted.
   */
  private end(stream: Open, reason: EndReason): void {
    if (stream.ended) return;
    stream.res.end(sseMessage(listenEnd(stream.id)));
    if (reason === 'overflow')
      this.logger.warn(`listen stream ${String(stream.id)} of ${stream.principalKey} ended: it stopped reading`);
    this.retire(stream);
    if (stream.res.closed) return;
    stream.cut = setTimeout(() => cut(stream.res), this.closeTimeoutMs);
    stream.cut.unref();
  }

  /** Nothing more is delivered to the stream. */
  private retire(stream: Open): void {
    if (stream.ended) return;
    stream.ended = true;
    clearTimeout(stream.timer);
    this.streams.delete(stream);
    this.followed.remove(stream);
    if (this.streams.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** Its connection has closed: the slot is free. */
  private release(stream: Open): void {
    this.retire(stream);
    clearTimeout(stream.cut);
    const left = this.countOf(stream.principalKey) - 1;
    if (left > 0) this.perPrincipal.set(stream.principalKey, left);
    else this.perPrincipal.delete(stream.principalKey);
  }
}

/** Resets the connection (RST): the unsent bytes in the process and in the kernel are dropped at once. */
function cut(res: Response): void {
  const socket = res.socket;
  if (socket && typeof socket.resetAndDestroy === 'function' && !socket.destroyed) socket.resetAndDestroy();
  else res.destroy();
}
