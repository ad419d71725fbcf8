import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEnum,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from '@app/mcp';
import { ROLES } from '../auth/scopes.js';

export enum TaskKind {
  Echo = 'echo',
  CsvSummary = 'csv_summary',
  Reconcile = 'reconcile',
}

export class CreateTaskDto {
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  @JSONSchema({ description: 'A short name for the task' })
  name: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsEnum(TaskKind)
  @JSONSchema({ description: 'echo: output = input; csv_summary: totals of one input CSV file; reconcile: matches a bank-statement CSV against a ledger CSV' })
  kind: TaskKind;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  instructions?: string;

  @IsOptional()
  @IsObject()
  @JSONSchema({ description: 'JSON Schema of the input the task expects' })
  input_schema?: Record<string, unknown>;

  @IsInt()
  @Min(1)
  @Max(100000)
  @JSONSchema({ description: 'Maximum cost units one execution may spend; it stops failed at the cap' })
  cost_cap: number;
}

export class UpdateTaskDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  instructions?: string;

  @IsOptional()
  @IsObject()
  input_schema?: Record<string, unknown>;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  cost_cap?: number;
}

export class LaunchPolicyDto {
  @IsArray()
  @ArrayMaxSize(4)
  @IsIn(ROLES as unknown as string[], { each: true })
  @JSONSchema({ description: 'Roles allowed to run the task (empty: anyone who may run tasks)' })
  roles: string[];

  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  @JSONSchema({ description: 'Member ids allowed to run the task, besides the roles' })
  member_ids: string[];
}

export class DestinationDto {
  @IsIn(['webhook'])
  type: 'webhook';

  @IsString()
  @MaxLength(64)
  webhook_id: string;
}

export class DestinationsDto {
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => DestinationDto)
  @JSONSchema({ description: 'Where execution events are delivered' })
  destinations: DestinationDto[];
}

export class RunTaskDto {
  @IsOptional()
  @IsObject()
  @JSONSchema({ description: 'Input of the execution (an object)' })
  input?: Record<string, unknown>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  @JSONSchema({ description: 'Ids of ready input files (upload them with kadu_files_create first)' })
  input_file_ids?: string[];
}
