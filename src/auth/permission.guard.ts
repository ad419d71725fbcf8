import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ApiError } from '../common/api-error.js';
import type { KaduPrincipal } from './kadu-principal.js';
import type { Permission } from './permissions.js';

const PERMISSION = 'kadu:permission';

/** Declares what a REST route needs (the same Permission its tool declares). */
export const Requires = (permission: Permission): MethodDecorator & ClassDecorator =>
  SetMetadata(PERMISSION, permission);

/** The permission a route declares (on its handler, else its controller); the API description reads it too. */
export function permissionOf(controller: Function, handler: Function): Permission | undefined {
  return new Reflector().getAllAndOverride<Permission | undefined>(PERMISSION, [handler, controller]);
}

export function missingScopes(principal: KaduPrincipal, permission: Permission): string[] {
  return permission.scopes.filter((s) => !principal.scopes.includes(s));
}

/** Runs after ApiAuthGuard: a missing scope is 403 insufficient_scope, a role too low is 403 forbidden. */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!permission) return true;
    const principal = (context.switchToHttp().getRequest<Request>() as Request & { user: KaduPrincipal }).user;
    const missing = missingScopes(principal, permission);
    if (missing.length) {
      throw new ApiError(
        403,
        'insufficient_scope',
        'Insufficient scope',
        `The token lacks the scope(s): ${missing.join(' ')}`,
      );
    }
    if (!permission.roles.some((role) => principal.roles.includes(role))) {
      throw new ApiError(
        403,
        'forbidden',
        'Forbidden',
        `This operation needs the ${permission.roles.join(' or ')} role`,
      );
    }
    return true;
  }
}
