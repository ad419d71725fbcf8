import { Injectable, Logger } from '@nestjs/common';
import type { McpConfirmationText, McpPrincipal } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { ExecutionsService } from '../executions/executions.service.js';
import { FilesService } from '../files/files.service.js';
import { SecretsService } from '../secrets/secrets.service.js';
import { TasksService } from '../tasks/tasks.service.js';
import { WebhookDeliveriesService } from '../webhooks/webhook-deliveries.service.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import { KADU_UNDO } from './kadu-undo.js';
import { describeValue } from '@kobana/nest-mcp';

type Args = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * What a destructive Kadu tool will do, in plain words, for the confirmation in the chat and the
 * approval page: the task, webhook, file or secret concerned, and the cost cap for runs. It reads
 * through the same services (so a foreign id describes nothing).
 */
@Injectable()
export class KaduConfirmations {
  private readonly logger = new Logger('KaduConfirmations');

  constructor(
    private readonly tasks: TasksService,
    private readonly executions: ExecutionsService,
    private readonly files: FilesService,
    private readonly webhooks: WebhooksService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly secrets: SecretsService,
  ) {}

  async describe(
    tool: { name: string; title?: string },
    args: Args,
    principal: McpPrincipal | undefined,
  ): Promise<McpConfirmationText> {
    const p = principal as KaduPrincipal;
    let message: string;
    try {
      message = await this.sentence(tool.name, args, p);
    } catch (error) {
      this.logger.debug(`no description for ${tool.name}: ${describeValue(error)}`);
      message = `${tool.title ?? tool.name} with ${JSON.stringify(args)}.`;
    }
    return { message, ...KADU_UNDO[tool.name] };
  }

  private async sentence(name: string, a: Args, p: KaduPrincipal): Promise<string> {
    const task = async () => (await this.tasks.get(p, str(a.task_id))).data;
    const webhook = async () => (await this.webhooks.get(p, str(a.webhook_id))).data;
    switch (name) {
      case 'kadu_tasks_run': {
        const t = await task();
        return `Run the Kadu task “${t.name}” (${t.kind}) — one execution that may spend up to ${t.cost_cap} cost units of this month's budget.`;
      }
      case 'kadu_tasks_delete':
        return `Delete the Kadu task “${(await task()).name}”.`;
      case 'kadu_tasks_set_launch_policy':
        return `Change who may launch the task “${(await task()).name}” to roles [${str(a.roles)}] and members [${str(a.member_ids)}].`;
      case 'kadu_tasks_set_destinations':
        return `Send the execution events of “${(await task()).name}” to ${str(a.destinations)} from now on.`;
      case 'kadu_executions_continue':
      case 'kadu_executions_cancel': {
        const e = (await this.executions.get(p, str(a.execution_id))).data;
        const t = (await this.tasks.get(p, e.task_id)).data;
        return name === 'kadu_executions_cancel'
          ? `Cancel execution ${e.id} of the task “${t.name}” (now ${e.status}).`
          : `Continue execution ${e.id} of “${t.name}” with the answers ${str(a.answers)}; it may spend up to ${e.cost.cap - e.cost.spent} more cost units.`;
      }
      case 'kadu_files_delete':
        return `Delete the file “${(await this.files.get(p, str(a.file_id))).data.name}”.`;
      case 'kadu_webhooks_create':
        return `Create a webhook that sends execution data (outputs included) to ${str(a.url)}.`;
      case 'kadu_webhooks_update':
        return `Change the webhook to ${(await webhook()).url} (${str({ url: a.url, events: a.events, active: a.active })}).`;
      case 'kadu_webhooks_delete':
        return `Delete the webhook to ${(await webhook()).url}; nothing more will be delivered there.`;
      case 'kadu_webhooks_rotate_secret':
        return `Replace the signing secret of the webhook to ${(await webhook()).url}; the receiver must get the new secret.`;
      case 'kadu_webhook_deliveries_replay': {
        const d = (await this.deliveries.getDelivery(p, str(a.delivery_id))).data;
        return `Send the ${d.event} delivery ${d.id} again to the webhook's current URL.`;
      }
      case 'kadu_secrets_rotate':
      case 'kadu_secrets_delete': {
        const s = (await this.secrets.get(p, str(a.secret_id))).data;
        return name === 'kadu_secrets_rotate'
          ? `Start rotating the secret ${s.name}.`
          : `Delete the secret ${s.name} and its value.`;
      }
      case 'kadu_members_update_role':
        return `Change the role of member ${str(a.member_id)} to ${str(a.role)}, which changes what they may run.`;
      case 'kadu_members_remove':
        return `Remove member ${str(a.member_id)} from the organisation.`;
      default:
        return `${name} with ${JSON.stringify(a)}.`;
    }
  }
}
