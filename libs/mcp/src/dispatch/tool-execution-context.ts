import type { ContextType, ExecutionContext, Type } from '@nestjs/common';
import type { Request, Response } from 'express';

// The hosts' interfaces are not exported by name from every Nest major's root: taken from the context's own methods.
type HttpArgumentsHost = ReturnType<ExecutionContext['switchToHttp']>;
type RpcArgumentsHost = ReturnType<ExecutionContext['switchToRpc']>;
type WsArgumentsHost = ReturnType<ExecutionContext['switchToWs']>;

/**
 * The ExecutionContext a host's `createParamDecorator` factory gets on a tool method: an `http`
 * context over the real request that carried the MCP message, as its REST route would give
 * (`switchToHttp().getRequest()` is that request, `req.user` what the app's guard put there).
 * Written here rather than importing Nest's internal ExecutionContextHost, whose path is not public.
 */
export class ToolExecutionContext implements ExecutionContext {
  private readonly args: [Request, Response, undefined];

  constructor(
    req: Request,
    res: Response,
    private readonly cls: Type,
    private readonly handler: (...args: unknown[]) => unknown,
  ) {
    this.args = [req, res, undefined];
  }

  getClass<T = unknown>(): Type<T> {
    return this.cls as Type<T>;
  }

  getHandler(): (...args: unknown[]) => unknown {
    return this.handler;
  }

  getArgs<T extends unknown[] = unknown[]>(): T {
    return this.args as unknown as T;
  }

  getArgByIndex<T = unknown>(index: number): T {
    return this.args[index] as T;
  }

  getType<T extends string = ContextType>(): T {
    return 'http' as T;
  }

  switchToHttp(): HttpArgumentsHost {
    const [req, res] = this.args;
    return {
      getRequest: <T>() => req as T,
      getResponse: <T>() => res as T,
      getNext: <T>() => undefined as T,
    };
  }

  switchToRpc(): RpcArgumentsHost {
    return { getData: <T>() => undefined as T, getContext: <T>() => undefined as T };
  }

  switchToWs(): WsArgumentsHost {
    return {
      getData: <T>() => undefined as T,
      getClient: <T>() => undefined as T,
      getPattern: () => '',
    };
  }
}
