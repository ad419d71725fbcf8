import { type CanActivate, type ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { exchangeOf, type McpExchange } from '../call/exchange.js';
import { type BodyRead, readBody, readCompleteBody } from '../call/read-body.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import type { LadderCheck } from './ladder-check.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import {
  bodyTooLarge,
  ErrorCode,
  isJsonContentType,
  isRejection,
  type JsonRpcMessage,
  jsonTextTooDeep,
  jsonValueTooDeep,
  methodNotAllowed,
  nestingTooDeep,
  parseJsonRpc,
  reject,
  type Rejection,
  unsupportedMediaType,
  validateJsonRpc,
} from '../protocol/index.js';

/**
 * Rungs 4–9 of docs/ladder.md §2, after authentication: POST only, JSON only, the body read under the
 * limit, then parsed into exactly one JSON-RPC request or notification.
 */
@Injectable()
export class McpTransportGuard implements CanActivate, LadderCheck {
  constructor(
    private readonly config: McpConfig,
    private readonly telemetry: McpTelemetry,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.check(context.switchToHttp().getRequest<Request>());
    return true;
  }

  /** Throws the first refusal; waits (returns a promise) only while the body is read. */
  check(req: Request): Promise<void> | undefined {
    if (req.method !== 'POST') throw new McpRejectionError(methodNotAllowed(req.method));
    if (!isJsonContentType(req.headers['content-type'])) {
      throw new McpRejectionError(unsupportedMediaType(req.headers['content-type']));
    }
    const exchange = exchangeOf(req);
    if (req.readableEnded && req.body !== undefined) {
      // A parser the module could not exempt at bootstrap (HostBodyParsers knows body-parser's) read
      // the body first: its own limit and parse errors answered before us, so the host must know.
      warnBodyReadByHost(this.config.path);
      if (jsonValueTooDeep(req.body, this.config.maxJsonDepth))
        throw new McpRejectionError(nestingTooDeep(this.config.maxJsonDepth, null));
      this.admit(req, exchange, validateJsonRpc(req.body));
      return undefined;
    }
    const limit = this.config.bodyLimit;
    const complete = readCompleteBody(req, limit);
    if (complete) {
      this.accept(req, exchange, complete);
      return undefined;
    }
    // The entry middleware hands the request on after the turn its bytes came in, so a body sent with
    // the headers was read above; one not all in yet is read as a stream.
    return readBody(req, limit).then((body) => this.accept(req, exchange, body));
  }

  /** Rungs 6–9 on the body read: under the limit, not nested too deep, one JSON-RPC message. */
  private accept(req: Request, exchange: McpExchange, body: BodyRead): void {
    if (!body.ok) {
      throw new McpRejectionError(
        body.reason === 'too_large'
          ? bodyTooLarge(this.config.bodyLimit)
          : reject('parse_error', 400, ErrorCode.ParseError, 'Parse error: the body could not be read', null),
      );
    }
    // Scanned before parsing: parsing a megabyte of brackets alone would hold the event loop.
    if (jsonTextTooDeep(body.text, this.config.maxJsonDepth))
      throw new McpRejectionError(nestingTooDeep(this.config.maxJsonDepth, null));
    this.admit(req, exchange, parseJsonRpc(body.text));
  }

  /** Rung 9's answer, however the body was read: one JSON-RPC message kept for the rest, or its refusal. */
  private admit(req: Request, exchange: McpExchange, message: JsonRpcMessage | Rejection): void {
    if (isRejection(message)) throw new McpRejectionError(message);
    exchange.message = message;
    // The message is known: the request's span opens (its parent may be in params._meta).
    this.telemetry.begin(req, exchange);
  }
}

let warnedBodyReadByHost = false;
function warnBodyReadByHost(path: string): void {
  if (warnedBodyReadByHost) return;
  warnedBodyReadByHost = true;
  new Logger('McpModule').warn(
    `A middleware of the app read the body of /${path} before the MCP endpoint: oversized and malformed bodies then get that middleware's answers, not JSON-RPC errors (docs/ladder.md §2 rungs 6-7). Make it skip /${path}.`,
  );
}
