import { McpInputRound } from '../call/inputs.js';
import type { McpCall } from '../call/mcp-call.js';
import type { MrtrService } from '../confirmation/mrtr.service.js';
import type { MethodBinding } from '../discovery/method-binding.js';
import { McpRejectionError } from '../errors.js';
import type { McpConfig } from '../mcp-config.js';
import type { McpAccessRequirement } from '../mcp.options.js';
import type { JsonObject } from '../protocol/index.js';
import type { AccessPolicy } from '../access/access-policy.js';
import type { MethodInvoker } from './method-invoker.js';
import { insufficientScope } from './scope-challenge.js';

/** What a prompt or resource is reached through: the access decision, the challenge's settings, the invoker and MRTR. */
export interface CatalogDoor {
  readonly access: AccessPolicy;
  readonly config: McpConfig;
  readonly invoker: MethodInvoker;
  readonly mrtr: MrtrService;
}

/**
 * The access decision for a prompt or resource (`prompts/get`, `resources/read`): hidden reads as
 * not found (`notFound`), a missing scope is the 403 step-up challenge naming `challenged`.
 */
export function admitCatalogEntry(
  door: CatalogDoor,
  call: McpCall,
  target: McpAccessRequirement,
  challenged: string,
  notFound: () => McpRejectionError,
): void {
  const decision = door.access.decide(call.principal, target);
  if (decision === 'hidden') throw notFound();
  if (decision === 'missing_scope')
    throw new McpRejectionError(insufficientScope(door.config, call.req, call.id, challenged, target.scopes));
}

/**
 * Runs the app's method behind a prompt or resource in its MRTR round (`round.key` and `round.args`
 * identify it), and shapes what it returns; what it throws is answered by the dispatcher (errors.ts).
 */
export async function invokeCatalogEntry(
  door: CatalogDoor,
  call: McpCall,
  round: { key: string; args: JsonObject },
  binding: MethodBinding,
  args: JsonObject,
  context: { name: string; uri?: string },
  shape: (value: unknown) => JsonObject,
): Promise<JsonObject> {
  // The round is handed to the method explicitly; without a requestState to check it is there at once.
  const opened = door.mrtr.open(call, round.key, round.args);
  const inputs = opened instanceof McpInputRound ? opened : await opened;
  return shape(await door.invoker.invoke(binding, args, call, context, inputs));
}
