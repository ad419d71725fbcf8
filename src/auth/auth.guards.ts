import { type ExecutionContext, HttpException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import {
  formatBearerChallenge,
  McpRejectionError,
  protectedResourceMetadataUrl,
  RateLimits,
  serviceUnavailable,
  StoreUnavailable,
  tooManyRequests,
} from '@kobana/nest-mcp';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/api-error.js';
import { authFailureOf, knownCaller } from './bearer.strategies.js';
import { KeySetUnavailable } from './token-verifier.js';
import type { KaduPrincipal } from './kadu-principal.js';
import { ALL_SCOPES } from './scopes.js';

/**
 * Failed logins spend a per-address budget (slows token guessing): once it is spent, an invalid
 * token from that address gets 429 with Retry-After instead of 401. The token is always checked
 * first, so a valid token is never refused because others behind the same address (a NAT, a
 * gateway) guessed wrong. Successful requests spend nothing here.
 */
async function withFailedAuthBudget(
  limits: RateLimits,
  req: Request,
  refuse: (retryAfter: number) => Error,
  down: () => Error,
  attempt: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof HttpException && error.getStatus() === 401)) throw error;
    let verdict;
    try {
      verdict = await limits.consume('failedAuth', `address:${req.ip ?? 'unknown'}`);
    } catch (storeError) {
      if (storeError instanceof StoreUnavailable) throw down();
      throw storeError;
    }
    if (verdict && !verdict.allowed) throw refuse(verdict.resetSec);
    throw error;
  }
}

/** A dependency the verification needs (the membership lookup's database) could not answer. */
function isUnavailable(err: unknown): err is HttpException {
  return err instanceof HttpException && err.getStatus() === 503;
}

function sentToken(req: Request): boolean {
  return /^bearer\s+\S/i.test(req.headers.authorization ?? '');
}

/** Why a request was refused: no token, or the verifier's reason for the one it sent. */
function refusal(context: ExecutionContext): { sent: boolean; description: string; res: Response } {
  const http = context.switchToHttp();
  const req = http.getRequest<Request>();
  const sent = sentToken(req);
  const description = sent ? (authFailureOf(req) ?? 'the token is not valid') : 'a bearer token is required';
  return { sent, description, res: http.getResponse<Response>() };
}

/** How one door refuses, each in its own envelope (JSON-RPC for MCP, the API's for REST). */
interface DoorRefusals {
  /** The failed-login budget of the caller's address is spent. */
  tooManyFailures(retryAfter: number, res: Response): Error;
  /** The failed-login budget's store cannot be reached. */
  budgetStoreDown(): Error;
  /** The authorization server's keys cannot be fetched. */
  keysDown(): Error;
  /** The member's standing could not be read (database down or slow): a 503, not a refused token. */
  databaseDown(error: HttpException): Error;
  /** No token, or a refused one: the 401, its challenge set on `res`. */
  unauthorized(sent: boolean, description: string, res: Response): Error;
}

/**
 * The verification both doors share (their own strategy, so their own audience), with the
 * failed-login budget; what differs is only how each door words a refusal.
 */
function BearerDoorGuard(strategy: 'mcp-bearer' | 'api-bearer') {
  const door = strategy === 'mcp-bearer' ? 'mcp' : 'api';
  abstract class BearerDoor extends AuthGuard(strategy) {
    protected abstract readonly limits: RateLimits;
    protected abstract readonly refusals: DoorRefusals;

    override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
      // The HTTP arguments by index: each switchToHttp() assigns three new closures to the request's
      // context (the ladder guard still makes one such call; this saves the other).
      // Below the bench's resolution (bench/RESULTS.md, issue 32, eleventh pass).
      const req = context.getArgByIndex<Request>(0);
      // The same token as this connection's previous request, still good: admitted as passport
      // would (AuthGuard sets `req.user`), without running it (bearer.strategies.ts knownCaller).
      const known = knownCaller(door, req);
      if (known) {
        (req as Request & { user?: KaduPrincipal }).user = known;
        return true;
      }
      const res = context.getArgByIndex<Response>(1);
      return withFailedAuthBudget(
        this.limits,
        req,
        (retryAfter) => this.refusals.tooManyFailures(retryAfter, res),
        () => this.refusals.budgetStoreDown(),
        async () => (await super.canActivate(context)) as boolean,
      );
    }

    override handleRequest<T = KaduPrincipal>(
      err: unknown,
      user: T | false,
      _info: unknown,
      context: ExecutionContext,
    ): T {
      if (!err && user) return user;
      if (err instanceof KeySetUnavailable) throw this.refusals.keysDown();
      if (isUnavailable(err)) throw this.refusals.databaseDown(err);
      const { sent, description, res } = refusal(context);
      throw this.refusals.unauthorized(sent, description, res);
    }
  }
  return BearerDoor;
}

/**
 * Rung 3 of the MCP ladder: no token or a refused one → 401 with the challenge that leads a
 * client to the OAuth login (libs/mcp/docs/security.md §Authentication), before any JSON-RPC method.
 */
@Injectable()
export class McpAuthGuard extends BearerDoorGuard('mcp-bearer') {
  protected readonly refusals: DoorRefusals = {
    tooManyFailures: (retryAfter, res) => {
      res.setHeader('Retry-After', String(retryAfter));
      return new McpRejectionError(tooManyRequests(null, retryAfter));
    },
    budgetStoreDown: () => new McpRejectionError(serviceUnavailable(null)),
    keysDown: () => new McpRejectionError(serviceUnavailable(null, 5, "the authorization server's keys")),
    databaseDown: () => new McpRejectionError(serviceUnavailable(null, 5, 'the database')),
    unauthorized: (sent, description, res) => {
      res.setHeader(
        'WWW-Authenticate',
        formatBearerChallenge({
          ...(sent ? { error: 'invalid_token' as const, errorDescription: description } : {}),
          scope: ALL_SCOPES.join(' '),
          resourceMetadata: protectedResourceMetadataUrl(this.config.publicBaseUrl, 'mcp'),
        }),
      );
      return new UnauthorizedException({ error: 'invalid_token', error_description: description });
    },
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    protected readonly limits: RateLimits,
  ) {
    super();
  }
}

/** The REST door: the same verification with the API's audience, answering in the API's error envelope. */
@Injectable()
export class ApiAuthGuard extends BearerDoorGuard('api-bearer') {
  protected readonly refusals: DoorRefusals = {
    tooManyFailures: (retryAfter) =>
      new ApiError(429, 'rate_limited', 'Too many failed logins', `Retry after ${retryAfter} seconds`).withHeader(
        'Retry-After',
        String(retryAfter),
      ),
    budgetStoreDown: () =>
      new ApiError(
        503,
        'service_unavailable',
        'Service unavailable',
        'The rate-limit store cannot be reached',
      ).withHeader('Retry-After', '5'),
    keysDown: () =>
      new ApiError(
        503,
        'service_unavailable',
        'Service unavailable',
        "The authorization server's keys cannot be fetched",
      ).withHeader('Retry-After', '5'),
    // The database's own 503 (it already says what is unavailable), as the API answers it anywhere.
    databaseDown: (error) => error,
    unauthorized: (sent, description, res) => {
      res.setHeader(
        'WWW-Authenticate',
        formatBearerChallenge(sent ? { error: 'invalid_token', errorDescription: description } : {}),
      );
      return new ApiError(401, 'unauthorized', 'Unauthorized', description);
    },
  };

  constructor(protected readonly limits: RateLimits) {
    super();
  }
}
