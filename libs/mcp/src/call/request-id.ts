import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { getHeldHeader } from '../response/held-headers.js';

const ids = new WeakMap<Request, string>();

/**
 * The id under which a request is logged and quoted in generic error messages: the app's own
 * (a `Request-Id` response header or `X-Request-Id` request header) when it has one.
 */
export function requestIdOf(req: Request, res: Response, custom?: (req: Request, res: Response) => string): string {
  let id = ids.get(req);
  if (id !== undefined) return id;
  if (custom) id = custom(req, res);
  else {
    // Held for the answer's head (an app's entry may hold it: response/held-headers.ts) or set.
    const fromResponse = getHeldHeader(res, 'request-id');
    const fromRequest = req.headers['x-request-id'];
    id = typeof fromResponse === 'string' ? fromResponse : typeof fromRequest === 'string' ? fromRequest : randomUUID();
  }
  ids.set(req, id);
  return id;
}
