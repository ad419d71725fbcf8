import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpResourceTemplate, McpTool } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ApiError } from '../common/api-error.js';
import { IdempotencyService } from '../common/idempotency.service.js';
import { assertId, newId } from '../common/ids.js';
import { limitOf, PageQueryDto, Paginator } from '../common/pagination.js';
import { SecretBox } from '../common/secret-box.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { hints, IDEMPOTENCY_KEY, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { WEBHOOK_SECRET_BOX } from './delivery-worker.js';
import { checkWebhookUrl } from './ssrf.js';
import { CreateWebhookDto, UpdateWebhookDto } from './webhook.dto.js';
import { type WebhookRow, webhookView } from './webhook.view.js';
import { WebhookEnvelope, WebhookPage, WebhookWithSecretEnvelope } from './webhook.response.js';

/** Webhooks: their endpoints (the delivery log is WebhookDeliveriesService). Secrets are shown once, at create and rotate. */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SECRET_BOX) private readonly box: SecretBox,
    private readonly orgs: OrgContextService,
    private readonly idempotency: IdempotencyService,
    private readonly paginator: Paginator,
  ) {}

  @McpTool({
    name: 'kadu_webhooks_list',
    output: WebhookPage,
    title: 'List webhooks',
    description: 'Lists webhooks (never their secrets).',
    annotations: hints('read', true),
    ...PERMISSIONS.webhooksRead,
  })
  async list(@McpCaller() principal: KaduPrincipal, @McpInput() query: PageQueryDto) {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const after = this.paginator.after(query.cursor, {});
    const rows = await this.db.query<WebhookRow>(
      `select * from webhooks where org_id = $1 and deleted_at is null and ($3::text is null or id < $3) order by id desc limit $2`,
      [ctx.orgId, limit + 1, after ?? null],
    );
    return this.paginator.page(rows.map(webhookView), limit, {});
  }

  @McpResourceTemplate({
    uriTemplate: 'kobana://kadu/webhooks/{id}',
    name: 'webhook',
    title: 'Webhook',
    description: 'A webhook (never its secret).',
    mimeType: 'application/json',
    bind: { id: 'webhook_id' },
    ...PERMISSIONS.webhooksRead,
  })
  @McpTool({
    name: 'kadu_webhooks_get',
    output: WebhookEnvelope,
    title: 'Get a webhook',
    description: 'Gets a webhook (never its secret).',
    annotations: hints('read', true),
    ...PERMISSIONS.webhooksRead,
  })
  async get(@McpCaller() principal: KaduPrincipal, @McpArg('webhook_id', idArg('webhook')) webhookId: string) {
    const ctx = await this.orgs.of(principal);
    return { data: webhookView(await this.load(ctx.orgId, webhookId)) };
  }

  @McpTool({
    name: 'kadu_webhooks_create',
    output: WebhookWithSecretEnvelope,
    title: 'Create a webhook',
    description:
      'Creates a webhook that receives execution events. The signing secret is in this response only; deliveries carry X-Kadu-Signature: sha256=<hex HMAC of the body>.',
    annotations: hints('destructive', false),
    ...PERMISSIONS.webhooksWrite,
    preflight: WebhooksService.prototype.checkCreate,
  })
  async create(
    @McpCaller() principal: KaduPrincipal,
    @McpInput() dto: CreateWebhookDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ) {
    const ctx = await this.orgs.of(principal);
    await this.checkUrl(dto.url);
    return this.idempotency.run(ctx.orgId, idempotencyKey, 'webhooks.create', dto, 201, async () => {
      const secret = newSecret();
      const [row] = await this.db.query<WebhookRow>(
        `insert into webhooks (id, org_id, url, events, active, secret_sealed) values ($1, $2, $3, $4::jsonb, true, $5) returning *`,
        [newId(), ctx.orgId, dto.url, JSON.stringify(dto.events ?? []), this.box.seal(secret)],
      );
      return { data: { ...webhookView(row!), secret } };
    });
  }

  @McpTool({
    name: 'kadu_webhooks_update',
    output: WebhookEnvelope,
    title: 'Update a webhook',
    description: 'Changes the URL, events or active flag of a webhook.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.webhooksWrite,
    preflight: WebhooksService.prototype.checkUpdate,
  })
  async update(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('webhook_id', idArg('webhook')) webhookId: string,
    @McpInput() dto: UpdateWebhookDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ) {
    const ctx = await this.orgs.of(principal);
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `webhooks.update:${webhookId}`, dto, 200, async () => {
      const current = await this.load(ctx.orgId, webhookId);
      const [row] = await this.db.query<WebhookRow>(
        'update webhooks set url = $3, events = $4::jsonb, active = $5, updated_at = now() where id = $1 and org_id = $2 returning *',
        [
          current.id,
          ctx.orgId,
          dto.url ?? current.url,
          JSON.stringify(dto.events ?? current.events),
          dto.active ?? current.active,
        ],
      );
      return { data: webhookView(row!) };
    });
  }

  @McpTool({
    name: 'kadu_webhooks_delete',
    output: WebhookEnvelope,
    title: 'Delete a webhook',
    description: 'Deletes a webhook; nothing more is delivered to it.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.webhooksWrite,
    preflight: WebhooksService.prototype.get,
  })
  async remove(@McpCaller() principal: KaduPrincipal, @McpArg('webhook_id', idArg('webhook')) webhookId: string) {
    const ctx = await this.orgs.of(principal);
    const id = assertId(webhookId, 'webhook');
    const [row] = await this.db.query<WebhookRow>(
      'update webhooks set deleted_at = now(), active = false, updated_at = now() where id = $1 and org_id = $2 and deleted_at is null returning *',
      [id, ctx.orgId],
    );
    if (!row) throw ApiError.notFound('webhook');
    return { data: webhookView(row) };
  }

  @McpTool({
    name: 'kadu_webhooks_rotate_secret',
    output: WebhookWithSecretEnvelope,
    title: 'Rotate a webhook secret',
    description: 'Replaces the signing secret of a webhook; the new secret is in this response only.',
    annotations: hints('destructive', false),
    ...PERMISSIONS.webhooksWrite,
    preflight: WebhooksService.prototype.get,
  })
  async rotateSecret(@McpCaller() principal: KaduPrincipal, @McpArg('webhook_id', idArg('webhook')) webhookId: string) {
    const ctx = await this.orgs.of(principal);
    const current = await this.load(ctx.orgId, webhookId);
    const secret = newSecret();
    const [row] = await this.db.query<WebhookRow>(
      'update webhooks set secret_sealed = $3, updated_at = now() where id = $1 and org_id = $2 returning *',
      [current.id, ctx.orgId, this.box.seal(secret)],
    );
    return { data: { ...webhookView(row!), secret } };
  }

  /** Before anyone is asked to confirm a new webhook: its URL is one deliveries may go to. */
  async checkCreate(_principal: KaduPrincipal, dto: CreateWebhookDto): Promise<void> {
    await this.checkUrl(dto.url);
  }

  /** Before anyone is asked to confirm a change: the webhook exists here and a new URL is allowed. */
  async checkUpdate(principal: KaduPrincipal, webhookId: string, dto: UpdateWebhookDto): Promise<void> {
    await this.load((await this.orgs.of(principal)).orgId, webhookId);
    if (dto.url !== undefined) await this.checkUrl(dto.url);
  }

  private async checkUrl(url: string): Promise<void> {
    const check = await checkWebhookUrl(url, this.config.webhookAllowLoopback);
    if (!check.ok)
      throw new ApiError(422, 'url_not_allowed', 'URL not allowed', `Webhook URL refused: ${check.reason}`, 'url');
  }

  /** A live webhook of the org, or 404. */
  async load(orgId: string, webhookId: string): Promise<WebhookRow> {
    const id = assertId(webhookId, 'webhook');
    const [row] = await this.db.query<WebhookRow>(
      'select * from webhooks where id = $1 and org_id = $2 and deleted_at is null',
      [id, orgId],
    );
    if (!row) throw ApiError.notFound('webhook');
    return row;
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
