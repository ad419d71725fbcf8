import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreateMemberDto, MembersService, UpdateRoleDto } from '../members/members.service.js';
import { CreateSecretDto, SecretsService } from '../secrets/secrets.service.js';

/** Secrets and members: the organisation's administration. */
@Controller('api/v1')
@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)
export class AdminController {
  constructor(
    private readonly secrets: SecretsService,
    private readonly members: MembersService,
  ) {}

  @Get('secrets')
  @Requires(PERMISSIONS.secretsRead)
  listSecrets(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.secrets.list(p, query);
  }

  @Post('secrets')
  @Requires(PERMISSIONS.secretsWrite)
  createSecret(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateSecretDto) {
    return this.secrets.create(p, dto);
  }

  @Get('secrets/:id')
  @Requires(PERMISSIONS.secretsRead)
  getSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.get(p, id);
  }

  @Delete('secrets/:id')
  @Requires(PERMISSIONS.secretsWrite)
  deleteSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.remove(p, id);
  }

  @Post('secrets/:id/rotate')
  @HttpCode(200)
  @Requires(PERMISSIONS.secretsWrite)
  rotateSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.rotate(p, id);
  }

  @Get('members')
  @Requires(PERMISSIONS.membersRead)
  listMembers(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.members.list(p, query);
  }

  @Post('members')
  @Requires(PERMISSIONS.membersWrite)
  createMember(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateMemberDto) {
    return this.members.create(p, dto);
  }

  @Patch('members/:id')
  @Requires(PERMISSIONS.membersWrite)
  updateMember(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: UpdateRoleDto) {
    return this.members.updateRole(p, id, dto);
  }

  @Delete('members/:id')
  @Requires(PERMISSIONS.membersWrite)
  removeMember(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.members.remove(p, id);
  }
}
