import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { McpConfig } from '../mcp-config.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { exchangeOf } from '../call/exchange.js';
import { bodyTooLarge, HEADER_PROTOCOL_VERSION, isOriginAllowed, originForbidden } from '../protocol/index.js';
import { sendRejection, setCommonHeaders } from './send.js';

/**
 * Rungs 1 and 2 of docs/ladder.md §2, before any guard: a foreign Origin (DNS rebinding) and a declared
 * Content-Length over the limit are refused without authenticating and without reading the body.
 */
@Injectable()
export class McpEntryMiddleware implements NestMiddleware {
  constructor(
    private readonly config: McpConfig,
    private readonly telemetry: McpTelemetry,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    this.telemetry.arrived(exchangeOf(req));
    const requested = req.headers[HEADER_PROTOCOL_VERSION];
    // Until the body is read, the revision in use is the header's, when it names one we serve.
    setCommonHeaders(
      res,
      typeof requested === 'string' && this.config.protocolVersions.includes(requested.trim())
        ? requested.trim()
        : undefined,
    );
    const origin = req.headers.origin;
    if (origin !== undefined && !isOriginAllowed(origin, this.config.publicOrigin, this.config.allowedOrigins)) {
      sendRejection(res, originForbidden(origin));
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > this.config.bodyLimit) {
      sendRejection(res, bodyTooLarge(this.config.bodyLimit));
      return;
    }
    // The guards run once this turn's bytes are in: the body that came with the headers is then
    // read in the same tick (McpTransportGuard), and no guard answers with a promise.
    process.nextTick(next);
  }
}
