import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { McpCall } from '../call/mcp-call.js';
import { McpToolRegistry, type RegisteredTool } from '../discovery/tool-registry.js';
import { MCP_DECLARED_GUARDS, McpConfig } from '../mcp-config.js';
import type { McpConfirmationText } from '../mcp.options.js';
import type { JsonObject } from '../protocol/index.js';
import { summarizeArguments, truncateText } from './approval-summary.js';
import { confirmationText, personTitle } from './confirmation-text.js';
import {
  ApprovalsService,
  type ApprovalRecord,
  type IssuedApproval,
  TooManyPendingApprovals,
} from './approvals.service.js';
import { canonicalJson } from './canonical-json.js';
import type { McpInputRound } from '../call/inputs.js';
import { InputRequests } from '../protocol/index.js';
import { argumentDigest } from './request-state.js';

const CONFIRM_SCHEMA: JsonObject = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Continue', description: 'Run it now' } },
  required: ['confirm'],
};

type Confirmation = McpConfirmationText;

const errorResult = (body: Record<string, unknown>): JsonObject => ({
  content: [{ type: 'text', text: JSON.stringify({ error: body }) }],
  isError: true,
});

/**
 * Nothing destructive runs until the person chooses to continue (docs/security.md §Confirmation), and
 * one confirmation allows exactly one run of exactly those arguments:
 * - 2026 clients that can show a form: `input_required` asking for `confirm`, run once on accept;
 * - 2026 clients that can only open a URL: the approval link as a URL elicitation;
 * - every other client: an `isError` result carrying the approval link and what to do next.
 */
@Injectable()
export class DestructiveGate implements OnApplicationBootstrap {
  private readonly audit = new Logger('McpAudit');

  constructor(
    private readonly config: McpConfig,
    private readonly approvals: ApprovalsService,
    private readonly registry: McpToolRegistry,
    @Inject(MCP_DECLARED_GUARDS) private readonly declaredGuards: number,
  ) {}

  /**
   * Confirmations and approvals belong to a caller. With no authentication declared (no `guards`,
   * no `principal`), every client would be the same nobody and could see, spend or be blocked by
   * another's approval: refuse to start rather than serve that.
   */
  onApplicationBootstrap(): void {
    if (this.config.destructiveTools !== 'confirm' || this.declaredGuards > 0 || this.config.customPrincipal) return;
    const destructive = this.registry.all().filter((t) => t.annotations.destructiveHint);
    if (destructive.length === 0) return;
    throw new Error(
      `McpModule: destructive tools (${destructive.map((t) => `${t.name} on ${t.location}`).join(', ')}) need a person's confirmation, ` +
        'which is bound to the caller, but no authentication is declared. Add your authentication guard to `guards` (or give `principal`), ' +
        "or set destructiveTools: 'refuse' (never over MCP) or 'run' (trusted clients only).",
    );
  }

  /** Undefined when the tool may run now (its run logged); else the answer that replaces the run. */
  async guard(
    tool: RegisteredTool,
    args: JsonObject,
    call: McpCall,
    inputs: McpInputRound,
  ): Promise<JsonObject | undefined> {
    if (this.config.destructiveTools === 'run') return undefined;
    if (this.config.destructiveTools === 'refuse') {
      return errorResult({
        code: 'confirmation_required',
        message: `${tool.name} is destructive and this server does not run destructive tools over MCP; it was not run.`,
      });
    }
    if (!call.principal) {
      // Approvals bind to a caller; without one every client would share them (and see each other's).
      return errorResult({
        code: 'confirmation_unavailable',
        message: `${tool.name} needs a person's confirmation, which is bound to an authenticated caller; this request has none. It was not run.`,
      });
    }
    const digest = argumentDigest(canonicalJson(args));
    const principalKey = this.config.principalKey(call.principal);
    const title = personTitle({ ...tool.annotations, name: tool.name, description: tool.listing.description });
    const confirmation = await confirmationText(
      this.config.describeConfirmation,
      { name: tool.name, title },
      args,
      call.principal,
    );
    const message = confirmation.message;
    const log = (event: string, extra: Record<string, unknown> = {}) =>
      // An object, not a string: a structured logger keeps `event` as a field of the line.
      this.audit.log({
        event,
        request_id: call.requestId,
        principal: principalKey,
        client: this.clientName(call),
        client_id: call.principal?.clientId,
        tool: tool.name,
        digest,
        ...extra,
      });
    const runOnce = (via: string): undefined => {
      log('run', { via });
      return undefined;
    };

    if (inputs.can('form')) {
      const state = inputs.state as { confirm?: string } | undefined;
      const answer = state?.confirm === tool.name ? inputs.elicitation('confirm', CONFIRM_SCHEMA) : undefined;
      if (answer) {
        if (answer.action === 'accept' && answer.content?.confirm === true) {
          log('confirmed', { via: 'elicitation' });
          return runOnce('elicitation');
        }
        log('declined', { via: 'elicitation', action: answer.action });
        return errorResult({
          code: 'confirmation_declined',
          message: `The person declined ${title}; nothing was run. Do not retry unless they ask.`,
        });
      }
      log('requested', { via: 'elicitation' });
      const undo = confirmation.undoable === false ? '\n\nThis cannot be undone.' : '';
      inputs.require(
        { confirm: InputRequests.form(`${message}${undo}\n\nDo you want to continue?`, CONFIRM_SCHEMA) },
        { confirm: tool.name },
      );
    }

    if (inputs.can('url')) {
      const state = inputs.state as { approval?: string; url?: string } | undefined;
      if (state?.approval && state.url) {
        const found = await this.approvals.byId(state.approval);
        if (
          found?.status === 'approved' &&
          found.record.digest === digest &&
          (await this.approvals.consume(found.record))
        ) {
          log('confirmed', { via: 'url_elicitation', approval_id: found.record.id });
          return runOnce('url_elicitation');
        }
        if (found?.status === 'rejected') {
          log('declined', { via: 'url_elicitation', approval_id: found.record.id });
          return errorResult({
            code: 'approval_rejected',
            message: `The person chose Cancel for ${title}; nothing was run.`,
          });
        }
        if (found?.status === 'pending')
          inputs.require({ approval: InputRequests.url(this.urlMessage(message), state.url) }, state);
      }
      const issued = await this.pendingOrNew(tool, title, args, digest, principalKey, confirmation, call);
      if ('error' in issued) return issued.error;
      log('requested', { via: 'url_elicitation', approval_id: issued.id });
      inputs.require(
        { approval: InputRequests.url(this.urlMessage(message), issued.url) },
        { approval: issued.id, url: issued.url },
      );
    }

    const existing = await this.approvals.forCall(principalKey, tool.name, digest);
    if (existing?.status === 'approved') {
      if (await this.approvals.consume(existing.record)) {
        log('confirmed', { via: 'approval_link', approval_id: existing.record.id });
        return runOnce('approval_link');
      }
    } else if (existing?.status === 'rejected') {
      await this.approvals.forget(existing.record);
      log('declined', { via: 'approval_link', approval_id: existing.record.id });
      return errorResult({
        code: 'approval_rejected',
        message: `The person chose Cancel for ${title}; nothing was run. Do not retry unless they ask.`,
      });
    } else if (existing?.status === 'pending') {
      // The model retried (or lost the link): the same link again, so a page the person has open keeps working.
      const shown = await this.approvals.reshow(existing.record, this.config.baseUrl(call.req));
      if (shown) {
        log('pending', { via: 'approval_link', approval_id: shown.id });
        return errorResult({
          code: 'approval_pending',
          message: `The person has not chosen Continue yet for ${title}. The link is the same as before: ${shown.url} — show it to them again if they do not have it open; once they have chosen Continue there, call ${tool.name} again with exactly the same arguments. Nothing has run yet.`,
          approval_url: shown.url,
          approval_id: shown.id,
          expires_at: shown.expiresAt,
        });
      }
    }
    const issued = await this.create(tool, title, args, digest, principalKey, confirmation, call);
    if ('error' in issued) return issued.error;
    log('requested', { via: 'approval_link', approval_id: issued.id });
    return errorResult({
      code: 'approval_required',
      message: `${message} This needs the person's approval. Show them this link: ${issued.url} — once they have chosen Continue there, call ${tool.name} again with exactly the same arguments. Nothing has run yet.`,
      approval_url: issued.url,
      approval_id: issued.id,
      expires_at: issued.expiresAt,
    });
  }

  /** The pending approval of this exact call with its link, or a new approval. */
  private async pendingOrNew(
    tool: RegisteredTool,
    title: string,
    args: JsonObject,
    digest: string,
    principalKey: string,
    confirmation: Confirmation,
    call: McpCall,
  ): Promise<IssuedApproval | { error: JsonObject }> {
    const existing = await this.approvals.forCall(principalKey, tool.name, digest);
    if (existing?.status === 'pending') {
      const shown = await this.approvals.reshow(existing.record, this.config.baseUrl(call.req));
      if (shown) return shown;
    }
    return this.create(tool, title, args, digest, principalKey, confirmation, call);
  }

  private async create(
    tool: RegisteredTool,
    title: string,
    args: JsonObject,
    digest: string,
    principalKey: string,
    confirmation: Confirmation,
    call: McpCall,
  ): Promise<IssuedApproval | { error: JsonObject }> {
    const caller = call.principal && this.config.describeCaller?.(call.principal);
    const record: Omit<ApprovalRecord, 'id' | 'expiresAt' | 'csrf'> = {
      principalKey,
      requester: caller?.person ?? call.principal?.subject ?? 'an unknown caller',
      ...(caller?.organisation ? { organisation: caller.organisation } : {}),
      ...(caller?.role ? { role: caller.role } : {}),
      clientName: this.clientName(call),
      ...(call.principal?.clientId ? { clientId: call.principal.clientId } : {}),
      tool: tool.name,
      title,
      digest,
      summary: summarizeArguments(args),
      // Without the host's sentence, the page says what the details list below shows (never raw JSON).
      message: this.config.describeConfirmation ? confirmation.message : `${title}, with the details below.`,
      ...(confirmation.undoable !== undefined ? { undoable: confirmation.undoable } : {}),
      ...(confirmation.undoNote ? { undoNote: confirmation.undoNote } : {}),
    };
    try {
      return await this.approvals.create(record, this.config.baseUrl(call.req));
    } catch (error) {
      if (!(error instanceof TooManyPendingApprovals)) throw error;
      return {
        error: errorResult({
          code: 'too_many_pending_approvals',
          message: `You already have ${error.limit} approvals waiting for a person's decision; ${tool.name} was not run and no new approval was made. Ask the person to decide the open ones, or retry in ${error.retryAfterSec} s.`,
          retry_after: error.retryAfterSec,
        }),
      };
    }
  }

  private urlMessage(message: string): string {
    return `${message} Open the link to review it and choose Continue or Cancel, then come back here.`;
  }

  /**
   * The client, as a person would recognise it: the name its token carries (from its OAuth
   * registration), else the name its request gives (2026 clientInfo), else a generic phrase.
   */
  private clientName(call: McpCall): string {
    return truncateText(
      call.principal?.clientName || (call.era.era === 'modern' && call.era.clientInfo?.name) || 'an MCP client',
      120,
    );
  }
}
