import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import { confirmationRefusal } from '../errors.js';
import { MCP_DECLARED_GUARDS, McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import { ApprovalRotation } from './approval-rotation.js';
import { ApprovalsService } from './approvals.service.js';
import {
  ConfirmationAudit,
  type ConfirmationChannel,
  CONFIRMED,
  confirmationRequestOf,
  type ConfirmationSubject,
} from './confirmation-request.js';
import { FormConfirmation } from './form-confirmation.js';
import { LinkConfirmation } from './link-confirmation.js';
import { UrlConfirmation } from './url-confirmation.js';

/**
 * Nothing destructive runs until the person chooses to continue (docs/security.md §Confirmation), and
 * one confirmation allows exactly one run of exactly those arguments:
 * - 2026 clients that can show a form: `input_required` asking for `confirm`, run once on accept
 *   (FormConfirmation);
 * - 2026 clients that can only open a URL: the approval link as a URL elicitation (UrlConfirmation);
 * - every other client: an `isError` result carrying the approval link and what to do next
 *   (LinkConfirmation).
 * The refusals' codes are CONFIRMATION_REFUSALS (errors.ts).
 */
@Injectable()
export class DestructiveGate implements OnApplicationBootstrap {
  private readonly audit = new ConfirmationAudit();
  private readonly channels: readonly ConfirmationChannel[];

  constructor(
    private readonly config: McpConfig,
    approvals: ApprovalsService,
    private readonly registry: McpToolRegistry,
    @Inject(MCP_DECLARED_GUARDS) private readonly declaredGuards: number,
  ) {
    const rotation = new ApprovalRotation(approvals, config);
    this.channels = [
      new FormConfirmation(this.audit),
      new UrlConfirmation(approvals, rotation, this.audit),
      new LinkConfirmation(approvals, rotation, this.audit),
    ];
  }

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

  /**
   * Undefined when the tool may run now (its run logged); else the answer that replaces the run.
   * A channel that asks for input ends the round by throwing (`inputs.require`).
   */
  async guard(subject: ConfirmationSubject): Promise<JsonObject | undefined> {
    const { tool, call } = subject;
    if (this.config.destructiveTools === 'run') return undefined;
    if (this.config.destructiveTools === 'refuse') {
      const message = `${tool.name} is destructive and this server does not run destructive tools over MCP; it was not run.`;
      return confirmationRefusal('refused', message);
    }
    if (!call.principal) {
      // Approvals bind to a caller; without one every client would share them (and see each other's).
      const message = `${tool.name} needs a person's confirmation, which is bound to an authenticated caller; this request has none. It was not run.`;
      return confirmationRefusal('unavailable', message);
    }
    const request = await confirmationRequestOf(subject, call.principal, this.config);
    // The first channel the client can be asked through (the approval link takes every client).
    const channel = this.channels.find((each) => each.accepts(subject.inputs))!;
    const outcome = await channel.confirm(request);
    if (outcome !== CONFIRMED) return outcome;
    this.audit.log(request, 'run', { via: channel.via });
    return undefined;
  }
}
