import type { Request } from 'express';
import type { EraDecision, JsonRpcMessage } from '../protocol/index.js';

/** What the ladder learnt about one HTTP request, handed from guard to guard to the controller. */
export interface McpExchange {
  message?: JsonRpcMessage;
  era?: EraDecision;
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
