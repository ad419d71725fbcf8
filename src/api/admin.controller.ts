import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiRateLimitGuard } from '../auth/api-rate-limit.guard.js';
import { ApiAuthGuard } from '../auth/auth.guards.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PermissionGuard, Requires } from '../auth/permission.guard.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreateMemberDto, MembersService, UpdateRoleDto } from '../members/members.service.js';
import { CreateSecretDto, SecretsService } from '../secrets/secrets.service.js';
import { ToolTwin } from '../openapi/tool-twin.decorator.js';

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
  @ToolTwin('kadu_secrets_list')
  listSecrets(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.secrets.list(p, query);
  }

  @Post('secrets')
  @Requires(PERMISSIONS.secretsWrite)
  @ApiOperation({
    summary: 'Create a secret',
    description:
      "Creates the secret's record and answers a single-use page URL where a person types its value (values never travel through the API).",
  })
  @ApiResponse({ status: 409, description: '`conflict`: a secret with this name exists' })
  createSecret(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateSecretDto) {
    return this.secrets.create(p, dto);
  }

  @Get('secrets/:id')
  @Requires(PERMISSIONS.secretsRead)
  @ToolTwin('kadu_secrets_get', { id: 'secret_id' })
  getSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.get(p, id);
  }

  @Delete('secrets/:id')
  @Requires(PERMISSIONS.secretsWrite)
  @ToolTwin('kadu_secrets_delete', { id: 'secret_id' })
  deleteSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.remove(p, id);
  }

  @Post('secrets/:id/rotate')
  @HttpCode(200)
  @Requires(PERMISSIONS.secretsWrite)
  @ToolTwin('kadu_secrets_rotate', { id: 'secret_id' })
  rotateSecret(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.secrets.rotate(p, id);
  }

  @Get('members')
  @Requires(PERMISSIONS.membersRead)
  @ToolTwin('kadu_members_list')
  listMembers(@CurrentPrincipal() p: KaduPrincipal, @Query() query: PageQueryDto) {
    return this.members.list(p, query);
  }

  @Post('members')
  @Requires(PERMISSIONS.membersWrite)
  @ApiOperation({ summary: 'Add a member', description: 'Adds a person to the organisation with a role.' })
  @ApiResponse({ status: 409, description: '`conflict`: this email is already a member' })
  createMember(@CurrentPrincipal() p: KaduPrincipal, @Body() dto: CreateMemberDto) {
    return this.members.create(p, dto);
  }

  @Patch('members/:id')
  @Requires(PERMISSIONS.membersWrite)
  @ToolTwin('kadu_members_update_role', { id: 'member_id' })
  @ApiResponse({ status: 409, description: '`last_owner`: the organisation must keep at least one owner' })
  updateMember(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string, @Body() dto: UpdateRoleDto) {
    return this.members.updateRole(p, id, dto);
  }

  @Delete('members/:id')
  @Requires(PERMISSIONS.membersWrite)
  @ToolTwin('kadu_members_remove', { id: 'member_id' })
  @ApiResponse({ status: 409, description: '`last_owner`: the organisation must keep at least one owner' })
  removeMember(@CurrentPrincipal() p: KaduPrincipal, @Param('id') id: string) {
    return this.members.remove(p, id);
  }
}
