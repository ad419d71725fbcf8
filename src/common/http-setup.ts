import type { INestApplication } from '@nestjs/common';
import type { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Request, type Response } from 'express';
import { DEFAULT_MAX_JSON_DEPTH, holdHeaders, jsonTextTooDeep, setHeldHeader } from '@kobana/nest-mcp';
import type { AppConfig } from '../config/app-config.js';
import { requestObserver } from '../telemetry/request-observer.js';
import { newRequestId } from './request-id.js';
import type { Logger } from 'pino';

/** What `configureHttp` adds for operators: REST spans and request metrics, and the access log. */
export interface HttpObservability {
  /** One line per request into this logger (`main.ts`); absent in tests and benchmarks. */
  readonly accessLog?: Logger;
  /** Spans and metrics per request (no-ops without an SDK, so off unless telemetry or a log asks). */
  readonly requests?: boolean;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Middleware in Express's shape, as the request hook runs it. */
type Middleware = (req: Request, res: Response, next: () => void) => void;

/**
 * Express-level setup shared by `main.ts` and the tests. The app is created with Nest's body
 * parser off: the MCP endpoint reads its own body after authentication (libs/mcp/docs/ladder.md rungs 3–7), and
 * every other route gets a 1 MiB JSON parser whose 413 uses the API's envelope.
 *
 * What runs before the routes (the observer, the Request-Id, the body parsers) runs in the request
 * hook of Nest's Express adapter, the first layer of every Nest app's router, rather than in a
 * layer of its own: each router layer costs every request its own pass through Express's loop,
 * the MCP calls included (bench/RESULTS.md, issue 32, eleventh pass).
 */
export function configureHttp(
  app: INestApplication,
  config: AppConfig,
  mcpPath = '/mcp',
  observability: HttpObservability = {},
): void {
  const adapter = app.getHttpAdapter() as ExpressAdapter;
  const instance = adapter.getInstance<express.Express>();
  instance.disable('x-powered-by');
  instance.set('trust proxy', 'loopback');
  const entry = requestEntry(config, mcpPath);
  const observer =
    observability.requests || observability.accessLog ? requestObserver(mcpPath, observability.accessLog) : undefined;
  // The observer first, so that its span and timing cover everything after it. The adapter holds
  // one request hook, and this is the app's: another caller would replace the Request-Id and the
  // parsers (wire-headers.e2e-spec.ts checks the id on every kind of answer).
  adapter.setOnRequestHook(observer ? (req, res, done) => observer(req, res, () => entry(req, res, done)) : entry);
}

/**
 * The Request-Id of every response (the client's own when it is safe to echo, else a new one),
 * then the body parsers, except where a route reads its own body: the MCP endpoint (after
 * authentication), uploads (raw bytes to disk) and the development authorization server
 * (oidc-provider).
 */
function requestEntry(config: AppConfig, mcpPath: string): Middleware {
  // One nesting limit at both doors (the MCP endpoint checks the same one): scanned before parsing.
  const json = express.json({
    limit: config.bodyLimit,
    verify: (_req, _res, buf) => {
      if (jsonTextTooDeep(buf.toString('utf8'), DEFAULT_MAX_JSON_DEPTH)) throw new NestingTooDeep();
    },
  });
  const form = express.urlencoded({ extended: false, limit: config.bodyLimit });
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : newRequestId();
    const path = req.path;
    if (path === mcpPath) {
      // Held with the endpoint's own headers for its answer's one writeHead (the module's holdHeaders).
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', id);
      return next();
    }
    res.setHeader('Request-Id', id);
    if (path.startsWith('/api/v1/uploads/') || path.startsWith('/oauth/')) return next();
    json(req, res, (jsonError?: unknown) => {
      if (jsonError) return sendParserError(res, jsonError);
      form(req, res, (formError?: unknown) => (formError ? sendParserError(res, formError) : next()));
    });
  };
}

class NestingTooDeep extends Error {}

function sendParserError(res: Response, error: unknown): void {
  const { status, type } = error as { status?: number; type?: string };
  if (error instanceof NestingTooDeep || (error as { cause?: unknown }).cause instanceof NestingTooDeep) {
    const detail = `The body nests deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`;
    res
      .status(400)
      .json({ status: 400, errors: [{ code: 'nesting_too_deep', title: 'JSON nested too deeply', detail }] });
    return;
  }
  if (status === 413 || type === 'entity.too.large') {
    res.setHeader('Connection', 'close');
    res.status(413).json({
      status: 413,
      errors: [{ code: 'payload_too_large', title: 'Payload too large', detail: 'The body exceeds 1048576 bytes' }],
    });
    return;
  }
  res.status(400).json({
    status: 400,
    errors: [{ code: 'invalid_json', title: 'Invalid JSON', detail: 'The body is not valid JSON' }],
  });
}

/** Bounds slow or stalled bodies and idle connections (libs/mcp/docs/security.md §Origin and transport hygiene). */
export function applyServerTimeouts(app: INestApplication): void {
  const server = app.getHttpServer() as import('node:http').Server;
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
}
