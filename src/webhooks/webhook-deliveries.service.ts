import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpResourceTemplate, McpTool } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ApiError } from '../common/api-error.js';
import { IdempotencyService } from '../common/idempotency.service.js';
import { assertId, isId, newId } from '../common/ids.js';
import { limitOf, Paginator } from '../common/pagination.js';
import { DATABASE, type Database } from '../db/database.js';
import { hints, IDEMPOTENCY_KEY, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { queuingTraceParent } from '../telemetry/webhook-span.js';
import { DeliveryWorker } from './delivery-worker.js';
import { ListDeliveriesQueryDto } from './webhook.dto.js';
import { type DeliveryRow, deliveryView } from './webhook.view.js';
import { DeliveryEnvelope, DeliveryPage } from './webhook.response.js';
import { WebhooksService } from './webhooks.service.js';

/** The webhooks' delivery log: read, and replayed as a new delivery to the webhook's current URL. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly idempotency: IdempotencyService,
    private readonly paginator: Paginator,
    private readonly worker: DeliveryWorker,
    private readonly webhooks: WebhooksService,
  ) {}

  @McpTool({
    name: 'kadu_webhook_deliveries_list',
    output: DeliveryPage,
    title: 'List webhook deliveries',
    description:
      'Lists webhook deliveries, newest first, optionally by webhook or status (pending, delivered, failed).',
    annotations: hints('read', true),
    ...PERMISSIONS.webhooksRead,
  })
  async listDeliveries(@McpCaller() principal: KaduPrincipal, @McpInput() query: ListDeliveriesQueryDto) {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const filters = { webhook_id: query.webhook_id, status: query.status };
    const after = this.paginator.after(query.cursor, filters);
    if (query.webhook_id !== undefined && !isId(query.webhook_id)) return this.paginator.page([], limit, filters);
    const rows = await this.db.query<DeliveryRow>(
      `select * from webhook_deliveries where org_id = $1
          and ($3::text is null or webhook_id = $3) and ($4::text is null or status = $4) and ($5::text is null or id < $5)
        order by id desc limit $2`,
      [ctx.orgId, limit + 1, query.webhook_id ?? null, query.status ?? null, after ?? null],
    );
    return this.paginator.page(rows.map(deliveryView), limit, filters);
  }

  @McpResourceTemplate({
    uriTemplate: 'kobana://kadu/webhook_deliveries/{id}',
    name: 'webhook_delivery',
    title: 'Webhook delivery',
    description: 'One webhook delivery: payload, status, attempts, last response code and error.',
    mimeType: 'application/json',
    bind: { id: 'delivery_id' },
    ...PERMISSIONS.webhooksRead,
  })
  @McpTool({
    name: 'kadu_webhook_deliveries_get',
    output: DeliveryEnvelope,
    title: 'Get a webhook delivery',
    description: 'Gets one delivery: payload, status, attempts, last response code and error.',
    annotations: hints('read', true),
    ...PERMISSIONS.webhooksRead,
  })
  async getDelivery(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('delivery_id', idArg('delivery')) deliveryId: string,
  ) {
    const ctx = await this.orgs.of(principal);
    return { data: deliveryView(await this.loadDelivery(ctx.orgId, deliveryId)) };
  }

  @McpTool({
    name: 'kadu_webhook_deliveries_replay',
    output: DeliveryEnvelope,
    title: 'Replay a webhook delivery',
    description:
      "Sends a delivery again, as a new delivery to the webhook's current URL. Each call is one more delivery.",
    annotations: hints('destructive', false),
    ...PERMISSIONS.webhooksWrite,
    preflight: WebhookDeliveriesService.prototype.getDelivery,
  })
  async replay(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('delivery_id', idArg('delivery')) deliveryId: string,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ) {
    const ctx = await this.orgs.of(principal);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `deliveries.replay:${deliveryId}`, {}, 202, async () => {
      const original = await this.loadDelivery(ctx.orgId, deliveryId);
      await this.webhooks.load(ctx.orgId, original.webhook_id);
      const [row] = await this.db.query<DeliveryRow>(
        `insert into webhook_deliveries (id, org_id, webhook_id, event, payload, status, replay_of, next_attempt_at, trace_parent)
         values ($1, $2, $3, $4, $5::jsonb, 'pending', $6, now(), $7) returning *`,
        [
          newId(),
          ctx.orgId,
          original.webhook_id,
          original.event,
          JSON.stringify(original.payload),
          original.id,
          queuingTraceParent(),
        ],
      );
      this.worker.kick();
      return { data: deliveryView(row!) };
    });
  }

  private async loadDelivery(orgId: string, deliveryId: string): Promise<DeliveryRow> {
    const id = assertId(deliveryId, 'delivery');
    const [row] = await this.db.query<DeliveryRow>('select * from webhook_deliveries where id = $1 and org_id = $2', [
      id,
      orgId,
    ]);
    if (!row) throw ApiError.notFound('delivery');
    return row;
  }
}
