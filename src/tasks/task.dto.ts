import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsOptional,
  IsArray,
  IsEnum,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from '@kobana/nest-mcp';
import { ROLES } from '../auth/scopes.js';
import { FreeFormObject, MaxJsonBytes, Omittable } from '../common/validation.js';

/** Limits on tenant JSON (docs/operators/limits-and-security.md §Security): a schema and a run's input. */
export const MAX_INPUT_SCHEMA_BYTES = 16_384;
export const MAX_RUN_INPUT_BYTES = 65_536;

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

  @Omittable()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsEnum(TaskKind)
  @JSONSchema({
    description:
      'echo: output = input; csv_summary: totals of one input CSV file; reconcile: matches a bank-statement CSV against a ledger CSV',
  })
  kind: TaskKind;

  @Omittable()
  @IsString()
  @MaxLength(10000)
  instructions?: string;

  // null = no schema (accepted, like leaving it out).
  @IsOptional()
  @IsObject()
  @MaxJsonBytes(MAX_INPUT_SCHEMA_BYTES)
  @FreeFormObject(
    `JSON Schema of the input the task expects (≤ ${MAX_INPUT_SCHEMA_BYTES} bytes; patterns use RE2 syntax; $ref only inside the schema); null: none`,
    { nullable: true },
  )
  input_schema?: Record<string, unknown> | null;

  @IsInt()
  @Min(1)
  @Max(100000)
  @JSONSchema({ description: 'Maximum cost units one execution may spend; it stops failed at the cap' })
  cost_cap: number;
}

export class UpdateTaskDto {
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(120)
  name?: string;

  @Omittable()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @Omittable()
  @IsString()
  @MaxLength(10000)
  instructions?: string;

  // null removes the schema.
  @IsOptional()
  @IsObject()
  @MaxJsonBytes(MAX_INPUT_SCHEMA_BYTES)
  @FreeFormObject('JSON Schema of the input the task expects; null removes it', { nullable: true })
  input_schema?: Record<string, unknown> | null;

  @Omittable()
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
  @Omittable()
  @IsObject()
  @MaxJsonBytes(MAX_RUN_INPUT_BYTES)
  @FreeFormObject(`Input of the execution (an object, ≤ ${MAX_RUN_INPUT_BYTES} bytes as JSON)`)
  input?: Record<string, unknown>;

  @Omittable()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  @JSONSchema({ description: 'Ids of ready input files (upload them with kadu_files_create first)' })
  input_file_ids?: string[];
}
