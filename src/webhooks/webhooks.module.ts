import { Module } from '@nestjs/common';
import { WebhooksController } from '../api/webhooks.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { CommonModule, keyed } from '../common/common.module.js';
import { SecretBox } from '../common/secret-box.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { DeliveryWorker, WEBHOOK_SECRET_BOX } from './delivery-worker.js';
import { WebhookEvents } from './webhook-events.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhooks: endpoints (`/api/v1/webhooks`, kadu_webhooks_*), the events executions raise, their signed deliveries. */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule, AuthModule],
  controllers: [WebhooksController],
  providers: [
    { provide: WEBHOOK_SECRET_BOX, ...keyed((k) => new SecretBox(k, 'webhook-secret')) },
    WebhooksService,
    WebhookDeliveriesService,
    WebhookEvents,
    DeliveryWorker,
  ],
  exports: [WebhooksService, WebhookDeliveriesService, WebhookEvents],
})
export class WebhooksModule {}
