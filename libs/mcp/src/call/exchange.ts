import type { Attributes, Context, Span, SpanContext } from '@opentelemetry/api';
import type { Request } from 'express';
import type { EraDecision, JsonRpcMessage } from '../protocol/index.js';

/** The tool, prompt or resource a request names, as the telemetry records it. */
export interface McpTarget {
  /** The low-cardinality target of the span name (a served tool or prompt). */
  readonly name?: string;
  /** `<method> <name>`, the span name of a served tool's or prompt's requests, made with the target. */
  readonly spanName?: string;
  readonly uri?: string;
  readonly attributes: Attributes;
}

/** What the ladder learnt about one HTTP request, handed from guard to guard to the controller. */
export interface McpExchange {
  message?: JsonRpcMessage;
  era?: EraDecision;
  /** `performance.now()` when the request reached the endpoint. */
  startedAt?: number;
  /** The tool, prompt or resource the request names (telemetry). */
  target?: McpTarget;
  /** The request's span and the context that holds it, while tracing records. */
  span?: Span;
  context?: Context;
  /** Set once the telemetry recorded the outcome: `error.type` when it failed. */
  finished?: boolean;
  errorType?: string;
}

const EXCHANGE = Symbol('mcp.exchange');
type WithExchange = Request & { [EXCHANGE]?: McpExchange };

/**
 * Kept on the request under a private symbol rather than in a WeakMap: one entry per request in a
 * WeakMap is ephemeron work for every garbage collection (measured under load), a property is not.
 */
export function exchangeOf(req: Request): McpExchange {
  const carrier = req as WithExchange;
  return (carrier[EXCHANGE] ??= {});
}

/** What an access log may say about an MCP request: never its arguments. */
export interface McpRequestSummary {
  readonly method: string;
  /** The tool or prompt called (with telemetry on, only one the module serves). */
  readonly target?: string;
  readonly era?: 'modern' | 'legacy';
  readonly protocolVersion?: string;
  /** `error.type` as the telemetry recorded it (a JSON-RPC code, or `tool_error`). */
  readonly errorType?: string;
  /** The request's span, when tracing records (so its log lines can carry the trace id). */
  readonly spanContext?: SpanContext;
}

/** The summary of a request the MCP endpoint parsed; undefined for any other request. */
/** The `error.type` of an MCP request's outcome (as its summary has it), without making the summary. */
export function mcpErrorType(req: Request): string | undefined {
  return (req as WithExchange)[EXCHANGE]?.errorType;
}

export function mcpRequestSummary(req: Request): McpRequestSummary | undefined {
  const exchange = (req as WithExchange)[EXCHANGE];
  const message = exchange?.message;
  if (!message) return undefined;
  const named = message.method === 'tools/call' || message.method === 'prompts/get' ? message.params?.name : undefined;
  return {
    method: message.method,
    // With telemetry off the target was not looked up: the name asked for (a log line, not a metric series).
    target: exchange.target ? exchange.target.name : typeof named === 'string' ? named.slice(0, 128) : undefined,
    era: exchange.era?.era,
    protocolVersion: exchange.era?.revision,
    errorType: exchange.errorType,
    spanContext: exchange.span?.spanContext(),
  };
}
