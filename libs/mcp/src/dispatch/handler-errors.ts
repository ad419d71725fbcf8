import { HttpException } from '@nestjs/common';
import { McpRejectionError } from '../http/send.js';
import type { McpConfig } from '../mcp-config.js';
import { invalidParams, type JsonRpcId } from '../protocol/index.js';
import { asUnavailable } from './unavailable.js';

/**
 * Rung 15 for resources and prompts (which have no `isError`): a 4xx from the app's method becomes
 * `-32602` carrying the app's error body; a 404 on a read is "resource not found" with `data.uri`.
 * Anything else propagates to the 500 of rung 16.
 */
export function asHandlerError(error: unknown, config: McpConfig, id: JsonRpcId, notFound?: { uri: string }): unknown {
  const down = asUnavailable(error, id);
  if (down) return down;
  if (error instanceof McpRejectionError || !(error instanceof HttpException) || error.getStatus() >= 500) return error;
  // (input requests are not HttpExceptions: they pass through to the MRTR service untouched)
  if (error.getStatus() === 404 && notFound) {
    return new McpRejectionError(invalidParams(id, `Resource not found: ${notFound.uri}`, { uri: notFound.uri }));
  }
  const body = config.options.errorBody ? config.options.errorBody(error) : error.getResponse();
  return new McpRejectionError(invalidParams(id, `Invalid params: ${error.message}`, body));
}
