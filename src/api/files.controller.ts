import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { CreateFileDto, ListFilesQueryDto } from '../files/file.dto.js';
import { FilesService } from '../files/files.service.js';

@Controller('api/v1/files')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @Requires(PERMISSIONS.filesWrite)
  create(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateFileDto, @Headers('x-idempotency-key') key?: string) {
    return this.files.create(p, dto, key);
  }

  @Get()
  @Requires(PERMISSIONS.filesRead)
  list(@CurrentPrincipal() p: KaduPrincipal, @Query() query: ListFilesQueryDto) {
    return this.files.list(p, query);
  }

  @Get(':id')
  @Requires(PERMISSIONS.filesRead)
  get(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.get(p, id);
  }

  @Post(':id/confirm')
  @HttpCode(200)
  @Requires(PERMISSIONS.filesWrite)
  confirm(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Headers('x-idempotency-key') key?: string) {
    return this.files.confirm(p, id, key);
  }

  @Post(':id/download_url')
  @HttpCode(200)
  @Requires(PERMISSIONS.filesRead)
  downloadUrl(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.downloadUrl(p, id);
  }

  @Delete(':id')
  @Requires(PERMISSIONS.filesWrite)
  remove(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.files.remove(p, id);
  }
}
