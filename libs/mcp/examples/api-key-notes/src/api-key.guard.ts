import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';

/** The app's own user object — not the module's principal shape. */
export interface AppUser {
  id: string;
  email: string;
  roles: string[];
}

const USERS: Record<string, AppUser> = {
  'ana-key': { id: 'ana', email: 'ana@example.com', roles: ['member'] },
  'bob-key': { id: 'bob', email: 'bob@example.com', roles: ['member'] },
};

/** The app's API-key authentication (no Passport): `X-Api-Key` → `req.user`, else 401. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; user?: AppUser }>();
    const user = USERS[req.headers['x-api-key'] ?? ''];
    if (!user) throw new UnauthorizedException({ error: 'invalid_api_key' });
    req.user = user;
    return true;
  }
}
