import { Logger } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import type { McpInputRound } from '../call/inputs.js';
import type { McpCall } from '../call/mcp-call.js';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import type { McpConfig } from '../mcp-config.js';
import type { McpConfirmationText } from '../mcp.options.js';
import type { JsonObject } from '../protocol/index.js';
import { truncateText } from './approval-summary.js';
import { canonicalJson } from './canonical-json.js';
import { confirmationText, personTitle } from './confirmation-text.js';
import { argumentDigest } from './request-state.js';

/** The destructive call to confirm, as the `confirm` step of a tools/call has it. */
export interface ConfirmationSubject {
  readonly tool: RegisteredTool;
  readonly args: JsonObject;
  readonly call: McpCall;
  readonly inputs: McpInputRound;
}

/** One destructive call waiting for a person: what every channel shows, binds an approval to and logs. */
export interface ConfirmationRequest extends ConfirmationSubject {
  /** Confirmations belong to a caller: there is always one here (DestructiveGate). */
  readonly principal: McpPrincipal;
  readonly principalKey: string;
  /** SHA-256 of the canonical arguments: one confirmation allows exactly these. */
  readonly digest: string;
  /** How the person reads the tool's name (personTitle). */
  readonly title: string;
  /** What the person is told the call will do (confirmationText). */
  readonly text: McpConfirmationText;
  /** The client, as a person would recognise it. */
  readonly clientName: string;
}

export async function confirmationRequestOf(
  subject: ConfirmationSubject,
  principal: McpPrincipal,
  config: McpConfig,
): Promise<ConfirmationRequest> {
  const { tool, args, call } = subject;
  const digest = argumentDigest(canonicalJson(args));
  const principalKey = config.principalKey(principal);
  const title = personTitle({ ...tool.annotations, name: tool.name, description: tool.listing.description });
  const text = await confirmationText(config.describeConfirmation, { name: tool.name, title }, args, principal);
  return { ...subject, principal, principalKey, digest, title, text, clientName: clientNameOf(call, principal) };
}

/**
 * The client's name: the one its token carries (from its OAuth registration), else the one its
 * request gives (2026 clientInfo), else a generic phrase.
 */
function clientNameOf(call: McpCall, principal: McpPrincipal): string {
  return truncateText(
    principal.clientName || (call.era.era === 'modern' && call.era.clientInfo?.name) || 'an MCP client',
    120,
  );
}

/** A channel's answer that the person confirmed this call: it runs now, once. */
export const CONFIRMED: unique symbol = Symbol('confirmed');

/**
 * One way of asking a person (docs/security.md §Confirmation). `confirm` answers CONFIRMED, or the
 * `isError` result that replaces the run, or ends the round by asking for input (`inputs.require`).
 */
export interface ConfirmationChannel {
  /** The channel's name in the audit log (`via`). */
  readonly via: 'elicitation' | 'url_elicitation' | 'approval_link';
  /** Whether this request's client can be asked this way. */
  accepts(inputs: McpInputRound): boolean;
  confirm(request: ConfirmationRequest): Promise<typeof CONFIRMED | JsonObject>;
}

/** The audit log of confirmations: one structured line per event. */
export class ConfirmationAudit {
  private readonly logger = new Logger('McpAudit');

  log(request: ConfirmationRequest, event: string, extra: Record<string, unknown> = {}): void {
    // An object, not a string: a structured logger keeps `event` as a field of the line.
    this.logger.log({
      event,
      request_id: request.call.requestId,
      principal: request.principalKey,
      client: request.clientName,
      client_id: request.principal.clientId,
      tool: request.tool.name,
      digest: request.digest,
      ...extra,
    });
  }
}
