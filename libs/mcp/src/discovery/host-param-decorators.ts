import type { PipeTransform, Type } from '@nestjs/common';
import type { McpParamBinding } from './mcp-param.decorators.js';

/*
 * Nest keeps a method's route-parameter decorators under this key on the class, one entry per
 * parameter: `<paramtype>:<index>` for its own (@Req, @Body, …) and
 * `<uid>__customRouteArgs__:<index>` with a `factory` for `createParamDecorator` ones
 * (@nestjs/common constants.ts and utils/assign-custom-metadata.util.ts, the same in Nest 10, 11
 * and 12). Read here so that an adopter's `@CurrentUser()` works on a tool unchanged (issue 28).
 */
const ROUTE_ARGS_METADATA = '__routeArguments__';
const CUSTOM_ROUTE_ARGS_METADATA = '__customRouteArgs__';
/** RouteParamtypes.REQUEST in @nestjs/common (enums/route-paramtypes.enum.ts). */
const REQUEST_PARAMTYPE = '0';

interface RouteArg {
  readonly index: number;
  readonly data?: unknown;
  readonly pipes?: readonly (Type<PipeTransform> | PipeTransform)[];
  readonly factory?: (data: unknown, context: unknown) => unknown;
}

/**
 * The bindings of the host's own parameter decorators on `metatype.methodName`: every
 * `createParamDecorator` one, and `@Req()` (the HTTP request that carried the MCP message). Nest's
 * other REST decorators (@Body, @Param, @Query, …) have no meaning in a tool call: refused by name.
 */
export function hostParamBindings(metatype: Type, methodName: string, where: string): McpParamBinding[] {
  const args: Record<string, RouteArg> = Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, methodName) ?? {};
  const bindings: McpParamBinding[] = [];
  for (const [key, arg] of Object.entries(args)) {
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA) && typeof arg.factory === 'function') {
      bindings.push({ index: arg.index, kind: 'host', factory: arg.factory, data: arg.data, pipes: arg.pipes ?? [] });
    } else if (key.split(':')[0] === REQUEST_PARAMTYPE) {
      bindings.push({ index: arg.index, kind: 'request' });
    } else {
      throw new Error(
        `parameter #${arg.index + 1} of ${where} has a REST route decorator (@Body, @Param, @Query, @Headers, …), ` +
          'which a tool call has no source for: use @McpArg or @McpInput',
      );
    }
  }
  return bindings;
}
