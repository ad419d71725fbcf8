import type { INestApplication } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { DEFAULT_MAX_JSON_DEPTH, jsonTextTooDeep } from '@kobana/nest-mcp';
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

/**
 * Express-level setup shared by `main.ts` and the tests. The app is created with Nest's body
 * parser off: the MCP endpoint reads its own body after authentication (libs/mcp/docs/ladder.md rungs 3–7), and
 * every other route gets a 1 MiB JSON parser whose 413 uses the API's envelope.
 */
export function configureHttp(
  app: INestApplication,
  config: AppConfig,
  mcpPath = '/mcp',
  observability: HttpObservability = {},
): void {
  const instance = app.getHttpAdapter().getInstance() as express.Express;
  instance.disable('x-powered-by');
  instance.set('trust proxy', 'loopback');
  // The observer first, so that its span and timing cover everything after it.
  if (observability.requests || observability.accessLog) app.use(requestObserver(mcpPath, observability.accessLog));
  // One nesting limit at both doors (the MCP endpoint checks the same one): scanned before parsing.
  const json = express.json({
    limit: config.bodyLimit,
    verify: (_req, _res, buf) => {
      if (jsonTextTooDeep(buf.toString('utf8'), DEFAULT_MAX_JSON_DEPTH)) throw new NestingTooDeep();
    },
  });
  const form = express.urlencoded({ extended: false, limit: config.bodyLimit });
  // The Request-Id and the body parsers in one middleware: Express runs each layer through its
  // router's loop on every request, the MCP calls included (bench/RESULTS.md, issue 32).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    res.setHeader(
      'Request-Id',
      typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : newRequestId(),
    );
    // The MCP endpoint reads its own body after authentication; uploads stream raw bytes to disk;
    // the development authorization server (oidc-provider) parses its own requests.
    const path = req.path;
    if (path === mcpPath || path.startsWith('/api/v1/uploads/') || path.startsWith('/oauth/')) return next();
    json(req, res, (jsonError?: unknown) => {
      if (jsonError) return sendParserError(res, jsonError);
      form(req, res, (formError?: unknown) => (formError ? sendParserError(res, formError) : next()));
    });
  });
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
