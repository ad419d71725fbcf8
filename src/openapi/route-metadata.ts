import { RequestMethod, type Type } from '@nestjs/common';
import { GUARDS_METADATA, HTTP_CODE_METADATA, METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { permissionOf } from '../auth/permission.guard.js';
import type { Permission } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';

/** What the API description needs to know about one route handler, read from Nest's own metadata. */
export interface RouteFacts {
  /** The success status Nest answers with (`@HttpCode`, else 201 for POST and 200 otherwise). */
  readonly status: number;
  /** The class of the `@Body()` parameter (a class-validator DTO). */
  readonly body?: Type;
  /** The class of a whole-object `@Query()` parameter. */
  readonly query?: Type;
  /** The route lists (its query is a page query): the answer is the list envelope. */
  readonly lists: boolean;
  /** Guarded by ApiAuthGuard: a bearer token for the API audience is required. */
  readonly bearer: boolean;
  /** What `@Requires` declares: scopes and the lowest role. */
  readonly permission?: Permission;
}

interface RouteArg {
  index: number;
  data?: unknown;
}

const DTO_BUILTINS = new Set<unknown>([Object, String, Number, Boolean, Array, undefined]);

export function routeFactsOf(controller: Type, methodName: string): RouteFacts {
  const handler = (controller.prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<string, RouteArg>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, methodName) ??
    []) as unknown[];
  // Keys are `<paramtype>:<index>`; only whole-object @Body() and @Query() parameters are DTOs.
  const dtoOf = (paramtype: RouteParamtypes): Type | undefined => {
    for (const [key, arg] of Object.entries(args)) {
      if (Number(key.split(':')[0]) !== paramtype || arg.data !== undefined) continue;
      const type = types[arg.index];
      if (!DTO_BUILTINS.has(type)) return type as Type;
    }
    return undefined;
  };
  const query = dtoOf(RouteParamtypes.QUERY);
  const guards = [
    ...((Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[]),
    ...((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[]),
  ];
  const permission = permissionOf(controller, handler);
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return {
    status:
      (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
      (method === RequestMethod.POST ? 201 : 200),
    body: dtoOf(RouteParamtypes.BODY),
    query,
    lists: query !== undefined && (query === PageQueryDto || query.prototype instanceof PageQueryDto),
    bearer: guards.includes(ApiAuthGuard),
    ...(permission ? { permission } : {}),
  };
}
