import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { describeError, getHeldHeader, StoreUnavailable } from '@kobana/nest-mcp';
import { ApiError, apiErrorBody, internalErrorBody } from './api-error.js';

/** Every error of the app outside the MCP endpoint, in the API's envelope; no stack or detail of a 500 leaks. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Api');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof StoreUnavailable) {
      res.setHeader('Retry-After', '5');
      res.status(503).json({
        status: 503,
        errors: [
          {
            code: 'service_unavailable',
            title: 'Service unavailable',
            detail: 'A dependency cannot be reached; retry shortly',
          },
        ],
      });
      return;
    }
    if (exception instanceof ApiError && exception.getStatus() === 503) {
      for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
      res.status(503).json(apiErrorBody(exception));
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      if (exception instanceof ApiError)
        for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
      res.status(exception.getStatus()).json(apiErrorBody(exception));
      return;
    }
    const requestId = String(getHeldHeader(res, 'Request-Id') ?? '');
    this.logger.error(`request ${requestId} failed: ${describeError(exception)}`);
    res.status(500).json(internalErrorBody(requestId));
  }
}
