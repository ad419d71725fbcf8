import type { Request } from 'express';
import { formatBearerChallenge } from '../auth/bearer-challenge.js';
import type { McpConfig } from '../mcp-config.js';
import { ErrorCode, type JsonRpcId, type Rejection, reject } from '../protocol/index.js';

/**
 * A target hidden only by a missing scope: 403 with a step-up challenge (2026-07-28 authorization
 * §Scope Challenge Handling), naming every scope the target needs, so the client can ask for them.
 */
export function insufficientScope(
  config: McpConfig,
  req: Request,
  id: JsonRpcId,
  what: string,
  scopes: readonly string[],
): Rejection {
  const scope = scopes.join(' ');
  const description = `The token lacks the scope(s) needed for ${what}: ${scope}`;
  return reject('insufficient_scope', 403, ErrorCode.InvalidRequest, description, id, {
    headers: {
      'WWW-Authenticate': formatBearerChallenge({
        error: 'insufficient_scope',
        errorDescription: description,
        scope,
        resourceMetadata: config.resourceMetadataUrl(req),
      }),
    },
    exactBody: JSON.stringify({ error: 'insufficient_scope', error_description: description, scope }),
  });
}
