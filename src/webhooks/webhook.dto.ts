import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { JSONSchema } from '@app/mcp';
import { PageQueryDto } from '../common/pagination.js';
import { WEBHOOK_EVENTS } from './webhook.view.js';

export class CreateWebhookDto {
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @JSONSchema({ description: 'Where deliveries are POSTed; public addresses only' })
  url: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENTS as unknown as string[], { each: true })
  @JSONSchema({ description: 'Events to receive (default: all)' })
  events?: string[];
}

export class UpdateWebhookDto {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  url?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENTS as unknown as string[], { each: true })
  events?: string[];

  @IsOptional()
  @IsBoolean()
  active?: boolean;
}

export class ListDeliveriesQueryDto extends PageQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  webhook_id?: string;

  @IsOptional()
  @IsIn(['pending', 'delivered', 'failed'])
  status?: string;
}
