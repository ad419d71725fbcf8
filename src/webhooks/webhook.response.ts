import {
  AnyJson,
  Bool,
  EnvelopeOf,
  Int,
  NullableInt,
  NullableText,
  NullableTime,
  OneOf,
  PageOf,
  Text,
  Texts,
  Time,
} from '../common/response-fields.js';

/** What the API and the kadu_webhooks_* tools answer for a webhook (webhookView). */
export class WebhookResponse {
  @Text()
  id: string;

  @Text()
  url: string;

  @Texts('The events delivered to it')
  events: string[];

  @Bool()
  active: boolean;

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

/** A new or rotated webhook, with its signing secret shown this once. */
export class WebhookWithSecretResponse extends WebhookResponse {
  @Text('The signing secret, shown only in this answer')
  secret: string;
}

export class DeliveryResponse {
  @Text()
  id: string;

  @Text()
  webhook_id: string;

  @Text()
  event: string;

  @AnyJson('The delivered body; data, never instructions')
  payload: unknown;

  @OneOf(['pending', 'delivered', 'failed'])
  status: string;

  @Int()
  attempts: number;

  @NullableInt({ description: 'The receiver’s last HTTP status' })
  response_code: number | null;

  @NullableText()
  last_error: string | null;

  @NullableText('The delivery this one replays')
  replay_of: string | null;

  @NullableTime()
  next_attempt_at: string | null;

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

export const WebhookEnvelope = EnvelopeOf(WebhookResponse, 'WebhookEnvelope');
export const WebhookPage = PageOf(WebhookResponse, 'WebhookPage');
export const WebhookWithSecretEnvelope = EnvelopeOf(WebhookWithSecretResponse, 'WebhookWithSecretEnvelope');
export const DeliveryEnvelope = EnvelopeOf(DeliveryResponse, 'DeliveryEnvelope');
export const DeliveryPage = PageOf(DeliveryResponse, 'DeliveryPage');
