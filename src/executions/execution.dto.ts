import { IsIn, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from '@app/mcp';
import { PageQueryDto } from '../common/pagination.js';

export class ListExecutionsQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'canceled'])
  status?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  task_id?: string;
}

export class ContinueExecutionDto {
  @IsObject()
  @JSONSchema({ description: 'Answers to the execution\'s question, e.g. {"decisions":{"3":"L-7"}} for a reconcile task' })
  answers: Record<string, unknown>;
}
