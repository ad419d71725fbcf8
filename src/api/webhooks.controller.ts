import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreateWebhookDto, ListDeliveriesQueryDto, UpdateWebhookDto } from '../webhooks/webhook.dto.js';
import { WebhookDeliveriesService } from '../webhooks/webhook-deliveries.service.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

@Controller('api/v1')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveryLog: WebhookDeliveriesService,
  ) {}

  @Get('webhooks')
  @Requires(PERMISSIONS.webhooksRead)
  @ToolTwin('kadu_webhooks_list')
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.webhooks.list(p, query);
  }

  @Post('webhooks')
  @Requires(PERMISSIONS.webhooksWrite)
  @ToolTwin('kadu_webhooks_create')
  @ApiResponse({
    status: 422,
    description: '`url_not_allowed`: the URL is private, loopback, link-local, reserved or an IPv4 tunnel',
  })
  create(
    @CurrentPrincipal() p: KaduPrincipal,
    @Body() dto: CreateWebhookDto,
    @Headers('x-idempotency-key') key?: string,
  ) {
    return this.webhooks.create(p, dto, key);
  }

  @Get('webhooks/:id')
  @Requires(PERMISSIONS.webhooksRead)
  @ToolTwin('kadu_webhooks_get', { id: 'webhook_id' })
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.get(p, id);
  }

  @Patch('webhooks/:id')
  @Requires(PERMISSIONS.webhooksWrite)
  @ToolTwin('kadu_webhooks_update', { id: 'webhook_id' })
  @ApiResponse({
    status: 422,
    description: '`url_not_allowed`: the URL is private, loopback, link-local, reserved or an IPv4 tunnel',
  })
  update(
    @CurrentPrincipal() p: KaduPrincipal,
    @Param('id') id: string,
    @Body() dto: UpdateWebhookDto,
    @Headers('x-idempotency-key') key?: string,
  ) {
    return this.webhooks.update(p, id, dto, key);
  }

  @Delete('webhooks/:id')
  @Requires(PERMISSIONS.webhooksWrite)
  @ToolTwin('kadu_webhooks_delete', { id: 'webhook_id' })
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.remove(p, id);
  }

  @Post('webhooks/:id/rotate_secret')
  @HttpCode(200)
  @Requires(PERMISSIONS.webhooksWrite)
  @ToolTwin('kadu_webhooks_rotate_secret', { id: 'webhook_id' })
  rotate(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.rotateSecret(p, id);
  }

  @Get('webhook_deliveries')
  @Requires(PERMISSIONS.webhooksRead)
  @ToolTwin('kadu_webhook_deliveries_list')
  deliveries(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListDeliveriesQueryDto) {
    return this.deliveryLog.listDeliveries(p, query);
  }

  @Get('webhook_deliveries/:id')
  @Requires(PERMISSIONS.webhooksRead)
  @ToolTwin('kadu_webhook_deliveries_get', { id: 'delivery_id' })
  delivery(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.deliveryLog.getDelivery(p, id);
  }

  @Post('webhook_deliveries/:id/replay')
  @HttpCode(202)
  @Requires(PERMISSIONS.webhooksWrite)
  @ToolTwin('kadu_webhook_deliveries_replay', { id: 'delivery_id' })
  replay(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.deliveryLog.replay(p, id, key);
  }
}
