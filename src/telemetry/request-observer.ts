import { performance } from 'node:perf_hooks';
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { getHeldHeader, mcpErrorType, mcpRequestSummary } from '@kobana/nest-mcp';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { recordRequest, type RequestOutcome } from './kadu-metrics.js';

const tracer = trace.getTracer('kadu.http');

/** The HTTP conventions' known methods; any other is recorded as `_OTHER` (its value is the client's choice). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
const methodOf = (req: Request): string => (KNOWN_METHODS.has(req.method) ? req.method : '_OTHER');

/**
 * Every request, either door: a SERVER span for the REST API and other routes (the MCP endpoint's
 * span is the module's, one per MCP request), the request metrics, and one access log line —
 * method, route, MCP method and tool, era, status, duration, request id, organisation and subject.
 * Never a header, a query string, a token or an argument: routes are logged by their pattern
 * (`/secrets/entry/:token`), so the secrets some URLs carry stay out.
 */
export function requestObserver(mcpPath: string, accessLog: Logger | undefined) {
  function finished(req: Request, res: Response, started: number, span: Span | undefined): void {
    const seconds = (performance.now() - started) / 1000;
    const status = res.writableFinished || res.headersSent ? res.statusCode : 499;
    const isMcp = span === undefined;
    const route = isMcp ? mcpPath : routeOf(req);
    // The MCP summary only for the access log: the metrics need its error type alone.
    const mcp = isMcp && accessLog ? mcpRequestSummary(req) : undefined;
    const door = isMcp ? 'mcp' : req.path.startsWith('/api/') ? 'api' : 'other';
    const outcome = outcomeOf(status, isMcp ? mcpErrorType(req) : undefined);
    const method = methodOf(req);
    // Metric labels: each bounded whatever the client sends (the route is the matched pattern).
    const http = httpLabels(method, route, status);
    recordRequest(door, outcome, seconds, http);
    if (span) {
      span.updateName(`${method} ${route}`);
      span.setAttributes(http);
      const scrubbed = scrubbedPath(req);
      if (scrubbed !== undefined) span.setAttribute('url.path', scrubbed);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    if (!accessLog) return;
    const principal = (req as Request & { user?: Partial<KaduPrincipal> }).user;
    // 'close' fires outside the request's context: the line is written back inside its span.
    const spanContext = span?.spanContext() ?? mcp?.spanContext;
    const write = (): void =>
      accessLog.info(
        {
          event: 'http.request',
          method: req.method,
          route,
          status,
          duration_ms: Math.round(seconds * 10_000) / 10,
          // Held for the MCP endpoint's one writeHead (http-setup.ts), which res.getHeader does not see.
          request_id: getHeldHeader(res, 'Request-Id'),
          door,
          outcome,
          ...(mcp
            ? {
                mcp_method: mcp.method,
                mcp_target: mcp.target,
                mcp_era: mcp.era,
                mcp_protocol_version: mcp.protocolVersion,
                mcp_error: mcp.errorType,
              }
            : {}),
          ...(principal?.org ? { org: principal.org, subject: principal.subject } : {}),
        },
        `${req.method} ${route} ${status}`,
      );
    if (spanContext) context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), write);
    else write();
  }
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    if (req.path === mcpPath) {
      // 'close' follows 'finish' on every response (Node emits it a tick later, once) and alone
      // comes for an aborted one: one listener per request instead of two, added with `on` (no
      // `once` wrapper: it is emitted once) (issue 32, tracing cost).
      res.on('close', () => finished(req, res, started, undefined));
      next();
      return;
    }
    const method = methodOf(req);
    // The request's own headers or nothing: never a context some earlier code left active.
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': req.path,
          'url.scheme': req.protocol,
          'network.protocol.version': req.httpVersion,
        },
      },
      parent,
    );
    res.on('close', () => finished(req, res, started, span));
    context.with(trace.setSpan(parent, span), next);
  };
}

const MAX_CACHED_LABEL_SETS = 4096;
/** By method, then route pattern, then status: no key string to build and hash per request. */
const labelSets = new Map<string, Map<string, Map<number, Attributes>>>();
let cachedLabelSets = 0;

/**
 * The request metric's labels, made once per distinct set and shared (issue 32, tracing cost):
 * method, route pattern and status are all bounded; the cap only guards against one that is not.
 */
function httpLabels(method: string, route: string, status: number): Attributes {
  let byRoute = labelSets.get(method);
  if (!byRoute) labelSets.set(method, (byRoute = new Map()));
  let byStatus = byRoute.get(route);
  if (!byStatus) byRoute.set(route, (byStatus = new Map()));
  let labels = byStatus.get(status);
  if (labels) return labels;
  labels = Object.freeze({
    'http.request.method': method,
    'http.route': route,
    'http.response.status_code': status,
    ...(status >= 500 ? { 'error.type': String(status) } : {}),
  });
  if (cachedLabelSets < MAX_CACHED_LABEL_SETS) {
    byStatus.set(status, labels);
    cachedLabelSets++;
  }
  return labels;
}

/**
 * Route parameters whose values are capabilities: a secret-entry link's single-use token, an OAuth
 * sign-in's interaction. The span's `url.path` is the raw path (set when the request arrives, before
 * any route matched); once one did, these values are written over, as the OpenTelemetry HTTP
 * conventions ask of sensitive content an instrumentation can identify (`url.path`). The access
 * log has only the pattern.
 */
const CAPABILITY_PARAMS = ['token', 'uid'];
const SCRUBBED = 'REDACTED';

/**
 * The request's path with its capability parameters' values written over, or undefined when it has
 * none (most requests: nothing is made for them).
 */
function scrubbedPath(req: Request): string | undefined {
  const params = req.params as Record<string, unknown> | undefined;
  let path: string | undefined;
  for (const name of CAPABILITY_PARAMS) {
    const value = params?.[name];
    if (typeof value !== 'string' || value === '') continue;
    const encoded = encodeURIComponent(value);
    path = (path ?? req.path)
      .split('/')
      .map((segment) => (segment === value || segment === encoded ? SCRUBBED : segment))
      .join('/');
  }
  return path;
}

/** The matched route's pattern; never the raw path of what no route matched (it may hold a secret). */
function routeOf(req: Request): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  return typeof pattern === 'string' ? pattern : '(unmatched)';
}

function outcomeOf(status: number, mcpError: string | undefined): RequestOutcome {
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'error';
  if (mcpError === 'tool_error') return 'tool_error';
  if (status >= 400 || mcpError) return 'refused';
  return 'ok';
}
