import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { JSONSchema } from '@kobana/nest-mcp';
import { PageQueryDto } from '../common/pagination.js';
import { Omittable } from '../common/validation.js';

export class CreateFileDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^[^/\\\u0000-\u001f]+$/, { message: 'name must not contain slashes or control characters' })
  @JSONSchema({ description: 'File name, e.g. statement.csv' })
  name: string;

  @IsString()
  @MaxLength(100)
  @Matches(/^[\w.+-]+\/[\w.+-]+$/, { message: 'content_type must be a media type such as text/csv' })
  content_type: string;

  @IsInt()
  @Min(0)
  @Max(1024 * 1024 * 1024)
  @JSONSchema({ description: 'Exact size in bytes of what you will upload' })
  size: number;

  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: 'sha256 must be 64 lowercase hex characters' })
  @JSONSchema({ description: 'SHA-256 (hex) of the exact bytes you will upload' })
  sha256: string;
}

export class ListFilesQueryDto extends PageQueryDto {
  @Omittable()
  @IsIn(['pending_upload', 'ready', 'rejected'])
  status?: string;

  @Omittable()
  @IsIn(['input', 'output'])
  purpose?: string;
}
