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
import { authFailureOf } from './bearer.strategies.js';
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

/**
 * Rung 3 of the MCP ladder: no token or a refused one → 401 with the challenge that leads a
 * client to the OAuth login (libs/mcp/docs/security.md §Authentication), before any JSON-RPC method.
 */
@Injectable()
export class McpAuthGuard extends AuthGuard('mcp-bearer') {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: RateLimits,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    const res = context.switchToHttp().getResponse<Response>();
    return withFailedAuthBudget(
      this.limits,
      context.switchToHttp().getRequest<Request>(),
      (retryAfter) => {
        res.setHeader('Retry-After', String(retryAfter));
        return new McpRejectionError(tooManyRequests(null, retryAfter));
      },
      () => new McpRejectionError(serviceUnavailable(null)),
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
    if (err instanceof KeySetUnavailable)
      throw new McpRejectionError(serviceUnavailable(null, 5, "the authorization server's keys"));
    // The member's standing could not be read (database down or slow): a 503, not a refused token.
    if (isUnavailable(err)) throw new McpRejectionError(serviceUnavailable(null, 5, 'the database'));
    const { sent, description, res } = refusal(context);
    res.setHeader(
      'WWW-Authenticate',
      formatBearerChallenge({
        ...(sent ? { error: 'invalid_token' as const, errorDescription: description } : {}),
        scope: ALL_SCOPES.join(' '),
        resourceMetadata: protectedResourceMetadataUrl(this.config.publicBaseUrl, 'mcp'),
      }),
    );
    throw new UnauthorizedException({ error: 'invalid_token', error_description: description });
  }
}

/** The REST door: the same verification with the API's audience, answering in the API's error envelope. */
@Injectable()
export class ApiAuthGuard extends AuthGuard('api-bearer') {
  constructor(private readonly limits: RateLimits) {
    super();
  }

  override canActivate(context: ExecutionContext): Promise<boolean> {
    return withFailedAuthBudget(
      this.limits,
      context.switchToHttp().getRequest<Request>(),
      (retryAfter) =>
        new ApiError(429, 'rate_limited', 'Too many failed logins', `Retry after ${retryAfter} seconds`).withHeader(
          'Retry-After',
          String(retryAfter),
        ),
      () =>
        new ApiError(
          503,
          'service_unavailable',
          'Service unavailable',
          'The rate-limit store cannot be reached',
        ).withHeader('Retry-After', '5'),
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
    if (err instanceof KeySetUnavailable) {
      throw new ApiError(
        503,
        'service_unavailable',
        'Service unavailable',
        "The authorization server's keys cannot be fetched",
      ).withHeader('Retry-After', '5');
    }
    // The member's standing could not be read (database down or slow): its own 503, not a 401.
    if (isUnavailable(err)) throw err;
    const { sent, description, res } = refusal(context);
    res.setHeader(
      'WWW-Authenticate',
      formatBearerChallenge(sent ? { error: 'invalid_token', errorDescription: description } : {}),
    );
    throw new ApiError(401, 'unauthorized', 'Unauthorized', description);
  }
}
