import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AppUser } from './api-key.guard.js';

/** The app's `@CurrentUser()` / `@CurrentUser('id')`, as its REST controllers use it. */
export const CurrentUser = createParamDecorator((field: keyof AppUser | undefined, context: ExecutionContext) => {
  const user = context.switchToHttp().getRequest<{ user?: AppUser }>().user;
  return field ? user?.[field] : user;
});
