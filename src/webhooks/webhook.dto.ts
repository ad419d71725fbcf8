import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsString, IsUrl, MaxLength } from 'class-validator';
import { JSONSchema } from '@kobana/nest-mcp';
import { PageQueryDto } from '../common/pagination.js';
import { WEBHOOK_EVENTS } from './webhook.view.js';
import { Omittable } from '../common/validation.js';

export class CreateWebhookDto {
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @JSONSchema({ description: 'Where deliveries are POSTed; public addresses only' })
  url: string;

  @Omittable()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENTS as unknown as string[], { each: true })
  @JSONSchema({ description: 'Events to receive (default: all)' })
  events?: string[];
}

export class UpdateWebhookDto {
  @Omittable()
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  url?: string;

  @Omittable()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENTS as unknown as string[], { each: true })
  events?: string[];

  @Omittable()
  @IsBoolean()
  active?: boolean;
}

export class ListDeliveriesQueryDto extends PageQueryDto {
  @Omittable()
  @IsString()
  @MaxLength(64)
  webhook_id?: string;

  @Omittable()
  @IsIn(['pending', 'delivered', 'failed'])
  status?: string;
}
