import { performance } from 'node:perf_hooks';
import { Injectable } from '@nestjs/common';
import {
  type Attributes,
  context,
  type Counter,
  createNoopMeter,
  type Histogram,
  type Link,
  metrics,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import type { McpExchange, McpTarget } from '../call/exchange.js';
import { isPlainObject, methodLabel, type Rejection } from '../protocol/index.js';
import { RateLimits } from '../state/rate-limits.js';
import * as sc from './semconv.js';
import { OutcomeLabelSets } from './outcome-labels.js';
import { requestAttributes } from './span-attributes.js';

const SCOPE = '@kobana/nest-mcp';
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const NO_TARGET: McpTarget = Object.freeze({ attributes: NO_ATTRIBUTES });
const UNKNOWN_TOOL: McpTarget = Object.freeze({
  attributes: Object.freeze({ [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool' }),
});

/** How one MCP request ended, as the telemetry records it. */
export interface McpOutcome {
  readonly rejection?: Rejection;
  /** A `tools/call` answered with `isError: true`. */
  readonly toolError?: boolean;
  /** An unexpected failure (500 `-32603`), or an HTTP error of the app's own guards. */
  readonly error?: unknown;
  readonly httpStatus?: number;
}

/**
 * One SERVER span per MCP request and the `mcp.server.operation.duration` histogram, named and
 * attributed as the MCP semantic conventions say (see semconv.ts). Through `@opentelemetry/api`
 * only: with no SDK registered by the app, every call here is a no-op.
 *
 * The span starts when the request reached the endpoint (its start time is taken then) but is
 * created once the body is parsed, because its parent may be the `traceparent` the client put in
 * `params._meta` (SEP-414) — else the request's HTTP headers, else whatever context is active.
 */
@Injectable()
export class McpTelemetry {
  private readonly tracer = trace.getTracer(SCOPE);
  private readonly duration: Histogram;
  private readonly refusals: Counter;
  /**
   * False when neither a tracer nor a meter provider is registered: every method then returns at
   * once (measured: the no-op API calls alone cost 1–4 % of a module `tools/call`).
   */
  private readonly enabled: boolean;
  /**
   * Targets of served tools and prompts by name (one map each: no key string per request), and
   * outcome label sets (bounded: only served names, see their makers).
   */
  private readonly toolTargets = new Map<string, McpTarget>();
  private readonly promptTargets = new Map<string, McpTarget>();
  private readonly outcomes = new OutcomeLabelSets();
  /** A tracer provider is registered: spans may record, so their attributes are worth making. */
  private readonly tracing: boolean;
  /** The header names the registered propagators read (carriesContext). */
  private propagationFields: string[] | undefined;

  constructor(
    private readonly tools: McpToolRegistry,
    private readonly catalog: McpCatalogRegistry,
    limits: RateLimits,
  ) {
    // Instruments are taken when the module is built: the app registers its SDK before that.
    const meter = metrics.getMeter(SCOPE);
    const tracers = trace.getTracerProvider();
    this.tracing = !(tracers instanceof ProxyTracerProvider) || tracers.getDelegateTracer(SCOPE) !== undefined;
    this.enabled = this.tracing || !(meter instanceof createNoopMeter().constructor);
    this.duration = meter.createHistogram(sc.METRIC_SERVER_OPERATION_DURATION, {
      unit: 's',
      description:
        'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
      advice: { explicitBucketBoundaries: sc.OPERATION_DURATION_BUCKETS },
    });
    this.refusals = meter.createCounter(sc.METRIC_RATE_LIMIT_REFUSALS, {
      unit: '{request}',
      description: 'Requests refused with 429 because a rate-limit budget was spent, by budget.',
    });
    limits.onRefusal((budget) => this.refused(budget));
  }

  /** Marks when the request reached the endpoint (the entry middleware, before authentication). */
  arrived(exchange: McpExchange): void {
    if (this.enabled) exchange.startedAt = performance.now();
  }

  /** After the body is parsed: opens the request's span. */
  begin(req: Request, exchange: McpExchange): void {
    const message = exchange.message;
    if (!message || !this.enabled) return;
    const target = this.targetOf(message.method, message.params);
    exchange.target = target;
    const active = context.active();
    const ambient = this.carriesContext(req.headers) ? propagation.extract(active, req.headers) : active;
    const meta = message.params?._meta;
    const fromMeta =
      isPlainObject(meta) && typeof meta.traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, meta) : undefined;
    const metaParent = fromMeta && trace.getSpanContext(fromMeta);
    // mcp.md, "Context propagation": the _meta context is the parent; the transport's is linked.
    const parent = metaParent ? fromMeta! : ambient;
    const ambientSpan = trace.getSpanContext(ambient);
    // Only when there is one: the SDK copies the links it is given (issue 32, tracing cost).
    const links: Link[] | undefined = metaParent && ambientSpan ? [{ context: ambientSpan }] : undefined;
    const method = methodLabel(message.method);
    const span = this.tracer.startSpan(
      target.spanName ?? (target.name ? `${method} ${target.name}` : method),
      {
        kind: SpanKind.SERVER,
        startTime: exchange.startedAt === undefined ? undefined : performance.timeOrigin + exchange.startedAt,
        // Every request attribute at creation, in one object the SDK copies once (and the sampler sees).
        attributes: this.tracing ? requestAttributes(method, target, message.id, req) : undefined,
        links,
      },
      parent,
    );
    if (span.isRecording()) {
      exchange.span = span;
      exchange.context = trace.setSpan(parent, span);
    }
  }

  /**
   * Whether the request has a header the registered propagators read (W3C: `traceparent`,
   * `tracestate`, `baggage`): most have none, and then extracting would return the active context
   * after a pass through every propagator (issue 32, sixth pass). The fields are read on the first
   * request, once the app's SDK has registered its propagators.
   */
  private carriesContext(headers: Request['headers']): boolean {
    for (const field of (this.propagationFields ??= propagation.fields()))
      if (headers[field] !== undefined) return true;
    return false;
  }

  /** Runs `work` inside the request's span, so the app's own spans (database, Redis) become its children. */
  run<T>(exchange: McpExchange, work: () => T): T {
    return exchange.context ? context.with(exchange.context, work) : work();
  }

  /** The response is written: ends the span and records the duration. */
  finish(req: Request, res: Response, exchange: McpExchange, outcome: McpOutcome = {}): void {
    const message = exchange.message;
    if (!message || exchange.finished) return;
    exchange.finished = true;
    const errorType = errorTypeOf(outcome);
    // Kept for the app's access log even with telemetry off.
    exchange.errorType = errorType;
    if (!this.enabled) return;
    // Every attribute here is a metric label: none may take a value the client invents — so the
    // set of distinct label sets is small, and each is made once (outcome-labels.ts).
    const { metric: attributes, span: spanLabels } = this.outcomes.of(
      methodLabel(message.method),
      exchange.target,
      exchange.era?.revision,
      errorType,
      outcome.rejection?.code,
    );
    const ended = exchange.startedAt === undefined ? undefined : performance.now();
    if (ended !== undefined) this.duration.record((ended - exchange.startedAt!) / 1000, attributes);
    const span = exchange.span;
    if (!span) return;
    // The outcome's labels the span does not have yet (the rest were set at its creation).
    span.setAttributes(spanLabels);
    span.setAttribute(sc.ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.httpStatus ?? res.statusCode);
    if (outcome.error instanceof Error) span.recordException(outcome.error);
    // mcp.md: status ERROR when error.type is set, described by the JSON-RPC error message.
    if (errorType)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: outcome.rejection?.message ?? (errorType === sc.TOOL_ERROR ? 'tool error' : undefined),
      });
    // Ended on the clock it started on, at the instant the duration metric read: given a start
    // time, the SDK would end it at Date.now() — whole milliseconds of the wall clock, so a 0.3 ms
    // call showed 0–1 ms, and the two clocks drift apart over a process's life.
    span.end(ended === undefined ? undefined : performance.timeOrigin + ended);
  }

  /**
   * Only tools and prompts the module serves name spans and metric series (client-sent names are
   * unbounded). The target of a served tool or prompt is made once and shared by its requests.
   */
  private targetOf(method: string, params: Record<string, unknown> | undefined): McpTarget {
    const name = typeof params?.name === 'string' ? params.name : undefined;
    if (method === 'tools/call' && name !== undefined) {
      if (this.tools.get(name) === undefined) return UNKNOWN_TOOL;
      return (
        this.toolTargets.get(name) ??
        kept(this.toolTargets, name, {
          name,
          spanName: `tools/call ${name}`,
          attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool', [sc.ATTR_GEN_AI_TOOL_NAME]: name },
        })
      );
    }
    if (method === 'prompts/get' && name !== undefined && this.catalog.prompts.has(name))
      return (
        this.promptTargets.get(name) ??
        kept(this.promptTargets, name, {
          name,
          spanName: `prompts/get ${name}`,
          attributes: { [sc.ATTR_GEN_AI_PROMPT_NAME]: name },
        })
      );
    if (method === 'resources/read' && typeof params?.uri === 'string')
      return { uri: params.uri.slice(0, 2048), attributes: NO_ATTRIBUTES };
    return NO_TARGET;
  }

  /** A budget refused a request (either door: the REST API spends the same budgets). */
  refused(budget: string): void {
    if (this.enabled) this.refusals.add(1, { 'mcp.rate_limit.budget': budget });
  }
}

/** A served tool's or prompt's target, made on its first request and kept (no closure per request). */
function kept(targets: Map<string, McpTarget>, name: string, target: McpTarget): McpTarget {
  targets.set(name, target);
  return target;
}

function errorTypeOf(outcome: McpOutcome): string | undefined {
  if (outcome.rejection) return String(outcome.rejection.code);
  if (outcome.toolError) return sc.TOOL_ERROR;
  if (outcome.httpStatus !== undefined && outcome.httpStatus >= 400) return String(outcome.httpStatus);
  if (outcome.error !== undefined) return '-32603';
  return undefined;
}
