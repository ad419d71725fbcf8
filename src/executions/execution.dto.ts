import { IsIn, IsObject, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../common/pagination.js';
import { FreeFormObject, MaxJsonBytes, Omittable } from '../common/validation.js';

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
  @FreeFormObject('Answers to the execution\'s question, e.g. {"decisions":{"3":"L-7"}} for a reconcile task')
  answers: Record<string, unknown>;
}
