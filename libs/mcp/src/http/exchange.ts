import type { Request } from 'express';
import type { EraDecision, JsonRpcMessage } from '../protocol/index.js';

/** What the ladder learnt about one HTTP request, handed from guard to guard to the controller. */
export interface McpExchange {
  message?: JsonRpcMessage;
  era?: EraDecision;
}

const exchanges = new WeakMap<Request, McpExchange>();

export function exchangeOf(req: Request): McpExchange {
  let exchange = exchanges.get(req);
  if (!exchange) {
    exchange = {};
    exchanges.set(req, exchange);
  }
  return exchange;
}
