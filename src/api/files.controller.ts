import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { CreateFileDto, ListFilesQueryDto } from '../files/file.dto.js';
import { FilesService } from '../files/files.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

@Controller('api/v1/files')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @Requires(PERMISSIONS.filesWrite)
  @ToolTwin('kadu_files_create')
  @ApiResponse({ status: 422, description: '`file_too_large`: over the largest file accepted' })
  create(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateFileDto, @Headers('x-idempotency-key') key?: string) {
    return this.files.create(p, dto, key);
  }

  @Get()
  @Requires(PERMISSIONS.filesRead)
  @ToolTwin('kadu_files_list')
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListFilesQueryDto) {
    return this.files.list(p, query);
  }

  @Get(':id')
  @Requires(PERMISSIONS.filesRead)
  @ToolTwin('kadu_files_get', { id: 'file_id' })
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.get(p, id);
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @Requires(PERMISSIONS.filesWrite)
  @ToolTwin('kadu_files_confirm', { id: 'file_id' })
  @ApiResponse({
    status: 409,
    description: '`upload_missing`: nothing was uploaded to the upload_url yet; `invalid_state`: the file was rejected',
  })
  @ApiResponse({
    status: 422,
    description: '`file_mismatch`: the bytes uploaded differ from the declared size or sha256 (the file is rejected)',
  })
  confirm(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.files.confirm(p, id, key);
  }

  @Post(':id/download_url')
  @HttpCode(200)
  @Requires(PERMISSIONS.filesRead)
  @ToolTwin('kadu_files_download', { id: 'file_id' })
  @ApiResponse({ status: 409, description: '`invalid_state`: only ready files can be downloaded' })
  @ApiResponse({ status: 410, description: "`file_gone`: the file's bytes are no longer available" })
  downloadUrl(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.downloadUrl(p, id);
  }

  @Delete(':id')
  @Requires(PERMISSIONS.filesWrite)
  @ToolTwin('kadu_files_delete', { id: 'file_id' })
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.remove(p, id);
  }
}
