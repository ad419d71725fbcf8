import { IsIn, IsObject, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from '@app/mcp';
import { PageQueryDto } from '../common/pagination.js';
import { MaxJsonBytes, Omittable } from '../common/validation.js';

export class ListExecutionsQueryDto extends PageQueryDto {
  @Omittable()
  @IsIn(['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'canceled'])
  status?: string;

  @Omittable()
  @IsString()
  @MaxLength(64)
  task_id?: string;
}

export class ContinueExecutionDto {
  @IsObject()
  @MaxJsonBytes(65_536)
  @JSONSchema({ description: 'Answers to the execution\'s question, e.g. {"decisions":{"3":"L-7"}} for a reconcile task' })
  answers: Record<string, unknown>;
}
