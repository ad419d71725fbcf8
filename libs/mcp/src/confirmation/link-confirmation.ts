import type { McpInputRound } from '../call/inputs.js';
import { confirmationRefusal } from '../errors.js';
import type { JsonObject } from '../protocol/index.js';
import type { ApprovalRotation } from './approval-rotation.js';
import type { ApprovalsService } from './approvals.service.js';
import {
  type ConfirmationAudit,
  type ConfirmationChannel,
  CONFIRMED,
  type ConfirmationRequest,
} from './confirmation-request.js';

/**
 * Every other client: an `isError` result carrying the approval link and what to do next. The
 * model calls again with the same arguments; an approval the person gave for them is spent once.
 */
export class LinkConfirmation implements ConfirmationChannel {
  readonly via = 'approval_link';

  constructor(
    private readonly approvals: ApprovalsService,
    private readonly rotation: ApprovalRotation,
    private readonly audit: ConfirmationAudit,
  ) {}

  accepts(_inputs: McpInputRound): boolean {
    return true;
  }

  async confirm(request: ConfirmationRequest): Promise<typeof CONFIRMED | JsonObject> {
    const { title, tool } = request;
    const existing = await this.rotation.lookUp(request);
    if (existing?.status === 'approved') {
      if (await this.approvals.consume(existing.record)) {
        this.audit.log(request, 'confirmed', { via: this.via, approval_id: existing.record.id });
        return CONFIRMED;
      }
    } else if (existing?.status === 'rejected') {
      await this.approvals.forget(existing.record);
      this.audit.log(request, 'declined', { via: this.via, approval_id: existing.record.id });
      const message = `The person chose Cancel for ${title}; nothing was run. Do not retry unless they ask.`;
      return confirmationRefusal('rejected', message);
    }
    const shown = await this.rotation.reshownOrNew(request, existing);
    if ('error' in shown) return shown.error;
    const { approval, reshown } = shown;
    const link = { approval_url: approval.url, approval_id: approval.id, expires_at: approval.expiresAt };
    if (reshown) {
      this.audit.log(request, 'pending', { via: this.via, approval_id: approval.id });
      const message = `The person has not chosen Continue yet for ${title}. The link is the same as before: ${approval.url} — show it to them again if they do not have it open; once they have chosen Continue there, call ${tool.name} again with exactly the same arguments. Nothing has run yet.`;
      return confirmationRefusal('pending', message, link);
    }
    this.audit.log(request, 'requested', { via: this.via, approval_id: approval.id });
    const message = `${request.text.message} This needs the person's approval. Show them this link: ${approval.url} — once they have chosen Continue there, call ${tool.name} again with exactly the same arguments. Nothing has run yet.`;
    return confirmationRefusal('required', message, link);
  }
}
