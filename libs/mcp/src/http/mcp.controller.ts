import { All, type CanActivate, Controller, Req, Res, type Type, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isThenable } from '../dispatch/thenable.js';
import { type DispatchOutcome, McpDispatcher } from '../dispatch/mcp-dispatcher.js';
import { McpLadderGuard } from '../guards/ladder.guard.js';
import { exchangeOf, type McpExchange } from '../call/exchange.js';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { McpExceptionFilter } from './mcp-exception.filter.js';
import { sendJson, sendRejection } from './send.js';

/**
 * The endpoint. By the time `handle` runs the guards have walked the ladder (authentication,
 * transport, era, headers), so what is left is: notifications get 202, requests get dispatched.
 */
export class McpEndpointController {
  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly telemetry: McpTelemetry,
  ) {}

  /**
   * Returns a promise only when the dispatch had to wait: a request answered in the same tick is
   * sent without one (Nest awaits whatever the handler returns, and turns a throw into the
   * exception filter's answer either way).
   */
  handle(req: Request, res: Response): Promise<void> | undefined {
    const exchange = exchangeOf(req);
    const { message, era } = exchange;
    if (!message || !era) throw new Error('the MCP ladder did not run');
    if (message.id === undefined) {
      // Rung 13: notifications are accepted with 202 and an empty body, in both eras.
      res.status(202).end();
      this.telemetry.finish(req, res, exchange);
      return undefined;
    }
    // Inside the request's span: what the tool's service does (database, queue) is its child.
    const outcome = this.telemetry.run(exchange, () => this.dispatcher.dispatch({ message, era }, req, res));
    if (isThenable(outcome))
      return Promise.resolve(outcome).then((settled) => this.answer(req, res, exchange, settled));
    this.answer(req, res, exchange, outcome);
    return undefined;
  }

  private answer(req: Request, res: Response, exchange: McpExchange, outcome: DispatchOutcome): void {
    if ('streamed' in outcome) {
      // The listen stream stays open; the request's span and access line end once it is answered.
      this.telemetry.finish(req, res, exchange);
    } else if ('rejection' in outcome) {
      sendRejection(res, outcome.rejection);
      this.telemetry.finish(req, res, exchange, { rejection: outcome.rejection });
    } else {
      sendJson(res, outcome.status, outcome.body, outcome.encoding);
      this.telemetry.finish(req, res, exchange, { toolError: outcome.toolError });
    }
  }
}

/**
 * Declares the endpoint's controller for one module registration: its path and the app's guards
 * (authentication, rung 3) come first, then the module's own ladder (ladder.ts) in one guard pass.
 */
export function createMcpController(path: string, appGuards: Type<CanActivate>[]): Type<McpEndpointController> {
  @Controller(path)
  @UseFilters(McpExceptionFilter)
  @UseGuards(...appGuards, McpLadderGuard)
  class McpController extends McpEndpointController {
    constructor(dispatcher: McpDispatcher, telemetry: McpTelemetry) {
      super(dispatcher, telemetry);
    }

    @All()
    override handle(@Req() req: Request, @Res() res: Response): Promise<void> | undefined {
      return super.handle(req, res);
    }
  }
  return McpController;
}
