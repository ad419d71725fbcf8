import type { McpInputRound } from '../call/inputs.js';
import { confirmationRefusal } from '../errors.js';
import { InputRequests, type JsonObject } from '../protocol/index.js';
import type { ApprovalRotation } from './approval-rotation.js';
import type { ApprovalsService } from './approvals.service.js';
import {
  type ConfirmationAudit,
  type ConfirmationChannel,
  CONFIRMED,
  type ConfirmationRequest,
} from './confirmation-request.js';

/**
 * 2026 clients that can only open a URL: the approval link as a URL elicitation. The retry's state
 * names the approval; an approved one of exactly these arguments is spent once, a pending one is
 * asked for again with the same link.
 */
export class UrlConfirmation implements ConfirmationChannel {
  readonly via = 'url_elicitation';

  constructor(
    private readonly approvals: ApprovalsService,
    private readonly rotation: ApprovalRotation,
    private readonly audit: ConfirmationAudit,
  ) {}

  accepts(inputs: McpInputRound): boolean {
    return inputs.can('url');
  }

  async confirm(request: ConfirmationRequest): Promise<typeof CONFIRMED | JsonObject> {
    const { inputs } = request;
    const state = inputs.state as { approval?: string; url?: string } | undefined;
    if (state?.approval && state.url) {
      const found = await this.approvals.byId(state.approval);
      const approved = found?.status === 'approved' && found.record.digest === request.digest;
      if (approved && (await this.approvals.consume(found.record))) {
        this.audit.log(request, 'confirmed', { via: this.via, approval_id: found.record.id });
        return CONFIRMED;
      }
      if (found?.status === 'rejected') {
        this.audit.log(request, 'declined', { via: this.via, approval_id: found.record.id });
        return confirmationRefusal('rejected', `The person chose Cancel for ${request.title}; nothing was run.`);
      }
      if (found?.status === 'pending') return inputs.require({ approval: this.ask(request, state.url) }, state);
    }
    const shown = await this.rotation.pendingOrNew(request);
    if ('error' in shown) return shown.error;
    const { approval } = shown;
    this.audit.log(request, 'requested', { via: this.via, approval_id: approval.id });
    return inputs.require({ approval: this.ask(request, approval.url) }, { approval: approval.id, url: approval.url });
  }

  private ask(request: ConfirmationRequest, url: string) {
    const message = `${request.text.message} Open the link to review it and choose Continue or Cancel, then come back here.`;
    return InputRequests.url(message, url);
  }
}
