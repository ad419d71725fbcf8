import type { Request } from 'express';
import { isJsonContentType, isRejection, type JsonRpcId, parseJsonRpc } from '../protocol/index.js';
import { readBody } from '../call/read-body.js';

/** How long an early refusal waits for a body the client has not finished sending. */
const WAIT_MS = 1000;

/**
 * The id of a request refused before its body was read (an app guard whose dependency is down
 * answers 503 at rung 3): the body is read under the same limit, briefly, so that the refusal
 * still names the request it answers. Null when the body is not JSON-RPC or does not come.
 */
export async function idOfUnreadRequest(req: Request, limit: number): Promise<JsonRpcId | null> {
  if (req.method !== 'POST' || !isJsonContentType(req.headers['content-type']) || req.readableEnded) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), WAIT_MS);
  });
  const read = readBody(req, limit).then((body) => {
    if (!body.ok) return null;
    const message = parseJsonRpc(body.text);
    return isRejection(message) ? message.id : (message.id ?? null);
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}
