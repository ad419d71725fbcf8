import {
  All,
  type CanActivate,
  Controller,
  Req,
  Res,
  type Type,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpDispatcher } from '../dispatch/mcp-dispatcher.js';
import { EraGuard } from '../guards/era.guard.js';
import { HeaderMatchGuard } from '../guards/header-match.guard.js';
import { RateLimitGuard } from '../guards/rate-limit.guard.js';
import { McpTransportGuard } from '../guards/transport.guard.js';
import { exchangeOf } from './exchange.js';
import { McpExceptionFilter } from './mcp-exception.filter.js';
import { sendJson, sendRejection } from './send.js';

/**
 * The endpoint. By the time `handle` runs the guards have walked the ladder (authentication,
 * transport, era, headers), so what is left is: notifications get 202, requests get dispatched.
 */
export class McpEndpointController {
  constructor(private readonly dispatcher: McpDispatcher) {}

  async handle(req: Request, res: Response): Promise<void> {
    const exchange = exchangeOf(req);
    const { message, era } = exchange;
    if (!message || !era) throw new Error('the MCP ladder did not run');
    if (message.id === undefined) {
      // Rung 13: notifications are accepted with 202 and an empty body, in both eras.
      res.status(202).end();
      return;
    }
    const outcome = await this.dispatcher.dispatch({ message, era }, req, res);
    if ('rejection' in outcome) sendRejection(res, outcome.rejection);
    else sendJson(res, outcome.status, outcome.body);
  }
}

/**
 * Declares the endpoint's controller for one module registration: its path and the app's guards
 * (authentication) come first, then the module's own ladder.
 */
export function createMcpController(path: string, appGuards: Type<CanActivate>[]): Type<McpEndpointController> {
  @Controller(path)
  @UseFilters(McpExceptionFilter)
  @UseGuards(...appGuards, McpTransportGuard, RateLimitGuard, EraGuard, HeaderMatchGuard)
  class McpController extends McpEndpointController {
    constructor(dispatcher: McpDispatcher) {
      super(dispatcher);
    }

    @All()
    override handle(@Req() req: Request, @Res() res: Response): Promise<void> {
      return super.handle(req, res);
    }
  }
  return McpController;
}
