import { type ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { formatBearerChallenge, protectedResourceMetadataUrl } from '@app/mcp';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/api-error.js';
import { authFailureOf } from './bearer.strategies.js';
import type { KaduPrincipal } from './kadu-principal.js';
import { ALL_SCOPES } from './scopes.js';

function sentToken(req: Request): boolean {
  return /^bearer\s+\S/i.test(req.headers.authorization ?? '');
}

/**
 * Rung 3 of the MCP ladder: no token or a refused one → 401 with the challenge that leads a
 * client to the OAuth login (security.md §Authentication), before any JSON-RPC method.
 */
@Injectable()
export class McpAuthGuard extends AuthGuard('mcp-bearer') {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  override handleRequest<T = KaduPrincipal>(err: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    if (!err && user) return user;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const sent = sentToken(req);
    const description = sent ? (authFailureOf(req) ?? 'the token is not valid') : 'a bearer token is required';
    http.getResponse<Response>().setHeader(
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
  override handleRequest<T = KaduPrincipal>(err: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
    if (!err && user) return user;
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const sent = sentToken(req);
    const description = sent ? (authFailureOf(req) ?? 'the token is not valid') : 'a bearer token is required';
    http.getResponse<Response>().setHeader(
      'WWW-Authenticate',
      formatBearerChallenge(sent ? { error: 'invalid_token', errorDescription: description } : {}),
    );
    throw new ApiError(401, 'unauthorized', 'Unauthorized', description);
  }
}
