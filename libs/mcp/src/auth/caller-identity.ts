import { Logger } from '@nestjs/common';
import type { Request } from 'express';
import { isMcpPrincipal, type McpPrincipal } from './principal.js';

/**
 * The request as the `principal` option reads it: `user` is whatever the app's guard put there
 * (typed by the app, e.g. with `principalFromUser`), so the option compiles in an app without
 * Passport's typings (issue 28, point 3).
 */
export type McpRequest = Request & { readonly user?: unknown };

/** Reads the verified principal from the request the app's guards let through. */
export type McpPrincipalReader = (req: McpRequest) => McpPrincipal | undefined;

/**
 * A typed `principal` option from the app's own user object: `map` gets `req.user` as the app's
 * guard set it (never called without one), e.g.
 * `principal: principalFromUser((user: AppUser) => ({ subject: user.id, scopes: [], roles: user.roles }))`.
 */
export function principalFromUser<User>(
  map: (user: User, req: McpRequest) => McpPrincipal | undefined,
): McpPrincipalReader {
  return (req) => (req.user === undefined || req.user === null ? undefined : map(req.user as User, req));
}

/**
 * A request that yields no principal although it should; the client gets a generic 500 -32603
 * (errors.ts), the operator one log line per process naming what to set.
 */
export class UnidentifiedCaller extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UnidentifiedCaller';
  }
}

/**
 * Who is calling, failing closed (docs/security.md §Identity). Before, a guard that set a user
 * object of its own shape (`{ id, email, roles }`) let every request through with no principal:
 * methods got `undefined` as their caller and one user's `notes_list` returned another's notes.
 * Now a request that passed declared guards, or carries a `req.user` the module cannot read, or
 * gets a non-principal from `principal`, never reaches a method. With no guards and no `req.user`
 * the request is anonymous, which only methods that do not take the caller serve.
 */
export class CallerIdentity {
  private readonly logger = new Logger('McpModule');
  private readonly told = new Set<string>();

  constructor(
    private readonly reader: McpPrincipalReader | undefined,
    /** How many guards the app declared before the ladder (its authentication). */
    private readonly declaredGuards: number,
  ) {}

  of(req: Request): McpPrincipal | undefined {
    const value: unknown = this.reader ? this.reader(req) : (req as McpRequest).user;
    if (isMcpPrincipal(value)) return value;
    if (value === undefined && this.declaredGuards === 0) return undefined;
    throw this.refusal(this.reasonFor(value));
  }

  /** A method that takes the caller was reached by an anonymous request: refused, said once. */
  anonymousCaller(location: string): UnidentifiedCaller {
    return this.refusal(
      `${location} takes the caller (@McpCaller) but the request has no principal: declare your authentication guard ` +
        'in `guards` (and `principal` when its user object is not { subject, scopes })',
    );
  }

  private reasonFor(value: unknown): string {
    const shape = 'an McpPrincipal ({ subject: string, scopes: string[], roles?: string[] })';
    if (this.reader) {
      return value === undefined
        ? 'the `principal` option returned nothing for a request the guards let through; return the caller, or let the guard refuse the request'
        : `the \`principal\` option returned ${describe(value)}, not ${shape}`;
    }
    if (value === undefined) {
      return 'the guards let the request through but set no req.user: give `principal` to read the caller from where your guard puts it';
    }
    return (
      `req.user is ${describe(value)}, not ${shape}: set \`principal\`, e.g. ` +
      'principal: principalFromUser((user: AppUser) => ({ subject: user.id, scopes: [], roles: user.roles }))'
    );
  }

  private refusal(reason: string): UnidentifiedCaller {
    if (!this.told.has(reason)) {
      this.told.add(reason);
      this.logger.error(
        `McpModule refuses MCP requests (500 -32603): ${reason}. See docs/authentication.md in the package.`,
      );
    }
    return new UnidentifiedCaller(reason);
  }
}

/** The value's shape, never its contents (a user object may hold personal data). */
function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${value === null ? 'null' : typeof value}`;
  const keys = Object.keys(value).slice(0, 8);
  return keys.length ? `an object with ${keys.join(', ')}` : 'an empty object';
}
