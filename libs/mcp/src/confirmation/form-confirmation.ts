import type { McpInputRound } from '../call/inputs.js';
import { confirmationRefusal } from '../errors.js';
import { InputRequests, type JsonObject } from '../protocol/index.js';
import {
  type ConfirmationAudit,
  type ConfirmationChannel,
  CONFIRMED,
  type ConfirmationRequest,
} from './confirmation-request.js';

const CONFIRM_SCHEMA: JsonObject = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Continue', description: 'Run it now' } },
  required: ['confirm'],
};

/**
 * 2026 clients that can show a form: `input_required` asking for `confirm`, and on the retry that
 * answers it, a run on accept. The state names the tool, so an answer meant for another is not one.
 */
export class FormConfirmation implements ConfirmationChannel {
  readonly via = 'elicitation';

  constructor(private readonly audit: ConfirmationAudit) {}

  accepts(inputs: McpInputRound): boolean {
    return inputs.can('form');
  }

  async confirm(request: ConfirmationRequest): Promise<typeof CONFIRMED | JsonObject> {
    const { inputs, tool, text } = request;
    const state = inputs.state as { confirm?: string } | undefined;
    const answer = state?.confirm === tool.name ? inputs.elicitation('confirm', CONFIRM_SCHEMA) : undefined;
    if (answer) {
      if (answer.action === 'accept' && answer.content?.confirm === true) {
        this.audit.log(request, 'confirmed', { via: this.via });
        return CONFIRMED;
      }
      this.audit.log(request, 'declined', { via: this.via, action: answer.action });
      const message = `The person declined ${request.title}; nothing was run. Do not retry unless they ask.`;
      return confirmationRefusal('declined', message);
    }
    this.audit.log(request, 'requested', { via: this.via });
    const undo = text.undoable === false ? '\n\nThis cannot be undone.' : '';
    const question = `${text.message}${undo}\n\nDo you want to continue?`;
    return inputs.require({ confirm: InputRequests.form(question, CONFIRM_SCHEMA) }, { confirm: tool.name });
  }
}
