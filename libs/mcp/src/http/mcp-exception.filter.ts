import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpConfig } from '../mcp-config.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { internalError } from '../protocol/index.js';
import { idOfUnreadRequest } from './early-id.js';
import { exchangeOf } from './exchange.js';
import { requestIdOf } from './request-id.js';
import { McpRejectionError, sendJson, sendRejection } from './send.js';
import { unavailable } from '../guards/rate-limit.guard.js';
import { StateStoreUnavailable } from '../state/mcp-state-store.js';

/**
 * Writes every failure of the endpoint: ladder rejections as compact JSON-RPC errors, HttpExceptions
 * of the app's own guards (401 challenges, 403) with their body, and anything else as a 500 with
 * `-32603` and no internal detail (rung 16) — the error itself goes to the log with the request id.
 */
@Catch()
@Injectable()
export class McpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('McpEndpoint');

  constructor(
    private readonly config: McpConfig,
    private readonly telemetry: McpTelemetry,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const exchange = exchangeOf(req);
    if (exception instanceof McpRejectionError) {
      const { rejection } = exception;
      if (rejection.status === 503 && rejection.id === null && !exchange.message) {
        // Refused before the body was read (the app's guard could not reach its store): name the request anyway.
        void idOfUnreadRequest(req, this.config.bodyLimit).then((id) => sendRejection(res, { ...rejection, id }));
        return;
      }
      sendRejection(res, rejection);
      this.telemetry.finish(req, res, exchange, { rejection });
      return;
    }
    if (exception instanceof StateStoreUnavailable) {
      // Approvals and request-state nonces cannot be checked: refuse rather than run unchecked.
      const rejection = unavailable(exchange.message?.id ?? null, 5, 'the state store');
      sendRejection(res, rejection);
      this.telemetry.finish(req, res, exchange, { rejection });
      return;
    }
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      sendJson(res, exception.getStatus(), JSON.stringify(typeof body === 'string' ? { message: body } : body));
      this.telemetry.finish(req, res, exchange, { httpStatus: exception.getStatus() });
      return;
    }
    const requestId = requestIdOf(req, res, this.config.options.requestId);
    this.logger.error(
      `request ${requestId} failed: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
    const rejection = internalError(exchange.message?.id ?? null, requestId);
    sendRejection(res, rejection);
    this.telemetry.finish(req, res, exchange, { rejection, error: exception });
  }
}
