import { type McpRateLimiter, type McpStateStore, rateLimitHeaders } from '@kobana/nest-mcp';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { CLIENT_LIFETIME_MS } from './state-adapter.js';

/** The largest registration request read: an MCP client's metadata is a few hundred bytes. */
export const MAX_REGISTRATION_BYTES = 8 * 1024;
const COUNT_KEY = 'registrations:count';

export interface RegistrationLimits {
  /** Registrations one client address may make (Express's `req.ip`, as the failed-login budget). */
  readonly perAddress: { points: number; durationSec: number } | false;
  /** Registrations kept per client lifetime (14 days), all addresses together. */
  readonly maxClients: number;
}

/**
 * What open dynamic registration (RFC 7591) may cost the development authorization server: each
 * request at most `MAX_REGISTRATION_BYTES` (stated in its Content-Length), a budget per client
 * address, and a count of the clients registered within a client's lifetime — so memory (or
 * Redis) holds at most twice `maxClients` × that size. The budget and the count are kept in the
 * provider's state store, so they hold across replicas in the distributed topology. It runs
 * before oidc-provider reads the body. (Registered clients cannot be updated: oidc-provider's
 * `registrationManagement` stays off.)
 */
export class RegistrationGate {
  private readonly limiter?: McpRateLimiter;

  constructor(
    private readonly store: McpStateStore,
    private readonly limits: RegistrationLimits,
  ) {
    if (limits.perAddress)
      this.limiter = store.limiter('registrations', limits.perAddress.points, limits.perAddress.durationSec);
  }

  handler(): RequestHandler {
    return (req, res, next) => void this.admit(req, res, next);
  }

  private async admit(req: Request, res: Response, next: NextFunction): Promise<void> {
    // A chunked body has no length to check before it is read: a registration states its size.
    const length = Number(req.headers['content-length'] ?? 0);
    if (req.headers['transfer-encoding'] || !(length <= MAX_REGISTRATION_BYTES))
      return answer(res, 400, {
        error: 'invalid_client_metadata',
        error_description: `a registration request is at most ${MAX_REGISTRATION_BYTES} bytes, with its Content-Length stated`,
      });
    try {
      if (this.limiter) {
        const spent = await this.spend(this.limiter, `address:${req.ip ?? 'unknown'}`);
        if (!spent.allowed) {
          for (const [name, value] of Object.entries(rateLimitHeaders(spent))) res.setHeader(name, value);
          return answer(res, 429, {
            error: 'rate_limited',
            error_description: `too many client registrations from this address; retry after ${spent.resetSec} s`,
          });
        }
      }
      // A place is taken before the registration and given back unless it ends registered (201):
      // one atomic count, whichever replica each registration reaches.
      const held = await this.store.increment(COUNT_KEY, 1, CLIENT_LIFETIME_MS);
      if (held.value > this.limits.maxClients) {
        await this.giveBack();
        const retryAfter = Math.max(1, Math.ceil(held.ttlMs / 1000));
        res.setHeader('Retry-After', String(retryAfter));
        return answer(res, 429, {
          error: 'rate_limited',
          error_description: `this development authorization server holds its ${this.limits.maxClients} registered clients; reuse one, or retry after ${retryAfter} s`,
        });
      }
    } catch {
      res.setHeader('Retry-After', '5');
      return answer(res, 503, {
        error: 'temporarily_unavailable',
        error_description: 'the authorization server state store cannot be reached; retry shortly',
      });
    }
    res.once('close', () => {
      if (res.statusCode !== 201) void this.giveBack();
    });
    next();
  }

  private giveBack(): Promise<unknown> {
    return this.store.increment(COUNT_KEY, -1, CLIENT_LIFETIME_MS).catch(() => undefined);
  }

  private async spend(limiter: McpRateLimiter, key: string) {
    const budget = this.limits.perAddress as { points: number; durationSec: number };
    let outcome: RateLimiterRes;
    let allowed = true;
    try {
      outcome = await limiter.consume(key);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      outcome = refusal;
      allowed = false;
    }
    return {
      allowed,
      limit: budget.points,
      remaining: Math.max(0, outcome.remainingPoints),
      resetSec: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
    };
  }
}

function answer(res: Response, status: number, body: { error: string; error_description: string }): void {
  res.status(status).set('Cache-Control', 'no-store').json(body);
}
