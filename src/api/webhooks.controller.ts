import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreateWebhookDto, ListDeliveriesQueryDto, UpdateWebhookDto } from '../webhooks/webhook.dto.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';

@Controller('api/v1')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('webhooks')
  @Requires(PERMISSIONS.webhooksRead)
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.webhooks.list(p, query);
  }

  @Post('webhooks')
  @Requires(PERMISSIONS.webhooksWrite)
  create(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateWebhookDto, @Headers('x-idempotency-key') key?: string) {
    return this.webhooks.create(p, dto, key);
  }

  @Get('webhooks/:id')
  @Requires(PERMISSIONS.webhooksRead)
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.get(p, id);
  }

  @Patch('webhooks/:id')
  @Requires(PERMISSIONS.webhooksWrite)
  update(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: UpdateWebhookDto, @Headers('x-idempotency-key') key?: string) {
    return this.webhooks.update(p, id, dto, key);
  }

  @Delete('webhooks/:id')
  @Requires(PERMISSIONS.webhooksWrite)
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.remove(p, id);
  }

  @Post('webhooks/:id/rotate_secret')
  @HttpCode(200)
  @Requires(PERMISSIONS.webhooksWrite)
  rotate(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.rotateSecret(p, id);
  }

  @Get('webhook_deliveries')
  @Requires(PERMISSIONS.webhooksRead)
  deliveries(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListDeliveriesQueryDto) {
    return this.webhooks.listDeliveries(p, query);
  }

  @Get('webhook_deliveries/:id')
  @Requires(PERMISSIONS.webhooksRead)
  delivery(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.webhooks.getDelivery(p, id);
  }

  @Post('webhook_deliveries/:id/replay')
  @HttpCode(202)
  @Requires(PERMISSIONS.webhooksWrite)
  replay(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.webhooks.replay(p, id, key);
  }
}
