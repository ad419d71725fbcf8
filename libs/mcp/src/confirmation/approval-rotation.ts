import { confirmationRefusal } from '../errors.js';
import type { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import { summarizeArguments } from './approval-summary.js';
import {
  type ApprovalRecord,
  type ApprovalStatus,
  ApprovalsService,
  type IssuedApproval,
  TooManyPendingApprovals,
} from './approvals.service.js';
import type { ConfirmationRequest } from './confirmation-request.js';

/** An approval to show the person: the pending one shown again (`reshown`), or a new one. */
export type ShownApproval =
  { readonly approval: IssuedApproval; readonly reshown: boolean } | { readonly error: JsonObject };

type Found = { record: ApprovalRecord; status: ApprovalStatus } | undefined;

/**
 * The approval of one exact call (caller, tool, argument digest) the URL elicitation and the
 * approval link share: a retry (or a model that lost the link) gets the same link again, so a page
 * the person has open keeps working; otherwise a new approval is made.
 */
export class ApprovalRotation {
  constructor(
    private readonly approvals: ApprovalsService,
    private readonly config: McpConfig,
  ) {}

  /** The pending approval of this call, else a new one. */
  async pendingOrNew(request: ConfirmationRequest): Promise<ShownApproval> {
    return this.reshownOrNew(request, await this.lookUp(request));
  }

  /** The approval of this call as stored now (pending, approved or rejected), if any. */
  lookUp(request: ConfirmationRequest): Promise<Found> {
    return this.approvals.forCall(request.principalKey, request.tool.name, request.digest);
  }

  /** `existing` shown again when it is pending and still there, else a new approval. */
  async reshownOrNew(request: ConfirmationRequest, existing: Found): Promise<ShownApproval> {
    if (existing?.status === 'pending') {
      const shown = await this.approvals.reshow(existing.record, this.config.baseUrl(request.call.req));
      if (shown) return { approval: shown, reshown: true };
    }
    return this.create(request);
  }

  private async create(request: ConfirmationRequest): Promise<ShownApproval> {
    const { principal, tool, title, text } = request;
    const caller = this.config.describeCaller?.(principal);
    const record: Omit<ApprovalRecord, 'id' | 'expiresAt' | 'csrf'> = {
      principalKey: request.principalKey,
      requester: caller?.person ?? principal.subject ?? 'an unknown caller',
      ...(caller?.organisation ? { organisation: caller.organisation } : {}),
      ...(caller?.role ? { role: caller.role } : {}),
      clientName: request.clientName,
      ...(principal.clientId ? { clientId: principal.clientId } : {}),
      tool: tool.name,
      title,
      digest: request.digest,
      summary: summarizeArguments(request.args),
      // Without the host's sentence, the page says what the details list below shows (never raw JSON).
      message: this.config.describeConfirmation ? text.message : `${title}, with the details below.`,
      ...(text.undoable !== undefined ? { undoable: text.undoable } : {}),
      ...(text.undoNote ? { undoNote: text.undoNote } : {}),
    };
    try {
      return { approval: await this.approvals.create(record, this.config.baseUrl(request.call.req)), reshown: false };
    } catch (error) {
      if (!(error instanceof TooManyPendingApprovals)) throw error;
      const message = `You already have ${error.limit} approvals waiting for a person's decision; ${tool.name} was not run and no new approval was made. Ask the person to decide the open ones, or retry in ${error.retryAfterSec} s.`;
      return { error: confirmationRefusal('tooManyPending', message, { retry_after: error.retryAfterSec }) };
    }
  }
}
