import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpTool } from '@kobana/nest-mcp';
import { IsEmail, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ROLES } from '../auth/scopes.js';
import { ApiError } from '../common/api-error.js';
import { assertId, newId } from '../common/ids.js';
import { limitOf, PageQueryDto, Paginator } from '../common/pagination.js';
import { iso } from '../common/serialize.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';
import { hints, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { MemberEnvelope, MemberPage } from './member.response.js';

export class CreateMemberDto {
  @IsEmail()
  @MaxLength(254)
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(120)
  name: string;

  @IsIn(ROLES as unknown as string[])
  role: string;
}

export class UpdateRoleDto {
  @IsIn(ROLES as unknown as string[])
  role: string;
}

interface MemberRow {
  id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  created_at: Date;
  updated_at: Date;
}

const memberView = (row: MemberRow) => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.status,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

/** Members of the organisation; changing them changes who can launch tasks, so writes are the owner's. */
@Injectable()
export class MembersService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly paginator: Paginator,
  ) {}

  @McpTool({
    name: 'kadu_members_list',
    output: MemberPage,
    title: 'List members',
    description: 'Lists the members of the organisation and their roles.',
    annotations: hints('read', true),
    ...PERMISSIONS.membersRead,
  })
  async list(@McpCaller() principal: KaduPrincipal, @McpInput() query: PageQueryDto) {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const after = this.paginator.after(query.cursor, {});
    const rows = await this.db.query<MemberRow>(
      `select * from members where org_id = $1 and deleted_at is null and ($3::text is null or id < $3) order by id desc limit $2`,
      [ctx.orgId, limit + 1, after ?? null],
    );
    return this.paginator.page(rows.map(memberView), limit, {});
  }

  async create(principal: KaduPrincipal, dto: CreateMemberDto) {
    const ctx = await this.orgs.of(principal);
    const clash = await this.db.query('select 1 from members where org_id = $1 and email = $2 and deleted_at is null', [
      ctx.orgId,
      dto.email,
    ]);
    if (clash.length) throw new ApiError(409, 'conflict', 'Conflict', `${dto.email} is already a member`, 'email');
    const [row] = await this.db.query<MemberRow>(
      `insert into members (id, org_id, email, name, role, status) values ($1, $2, $3, $4, $5, 'active') returning *`,
      [newId(), ctx.orgId, dto.email, dto.name, dto.role],
    );
    await this.orgs.forget(ctx.slug, dto.email);
    return { data: memberView(row!) };
  }

  @McpTool({
    name: 'kadu_members_update_role',
    output: MemberEnvelope,
    title: "Change a member's role",
    description: 'Changes the role of a member (viewer, operator, admin, owner), which changes what they may run.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.membersWrite,
    preflight: MembersService.prototype.checkMember,
  })
  async updateRole(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('member_id', idArg('member')) memberId: string,
    @McpInput() dto: UpdateRoleDto,
  ) {
    const ctx = await this.orgs.of(principal);
    const changed = await this.db.transaction(async (tx) => {
      const member = await this.load(tx, ctx.orgId, memberId);
      if (member.role === 'owner' && dto.role !== 'owner') await this.keepAnOwner(tx, ctx.orgId);
      const [row] = await tx.query<MemberRow>(
        'update members set role = $3, updated_at = now() where id = $1 and org_id = $2 returning *',
        [member.id, ctx.orgId, dto.role],
      );
      return { data: memberView(row!) };
    });
    // Once committed: the member's next request on every replica has the new role (MembershipChanges;
    // without Redis, or with it away, other replicas within MEMBERSHIP_MAX_AGE_MS).
    await this.orgs.forget(ctx.slug, changed.data.email);
    return changed;
  }

  @McpTool({
    name: 'kadu_members_remove',
    output: MemberEnvelope,
    title: 'Remove a member',
    description: 'Removes a member from the organisation.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.membersWrite,
    preflight: MembersService.prototype.checkMember,
  })
  async remove(@McpCaller() principal: KaduPrincipal, @McpArg('member_id', idArg('member')) memberId: string) {
    const ctx = await this.orgs.of(principal);
    const removed = await this.db.transaction(async (tx) => {
      const member = await this.load(tx, ctx.orgId, memberId);
      if (member.role === 'owner') await this.keepAnOwner(tx, ctx.orgId);
      const [row] = await tx.query<MemberRow>(
        `update members set deleted_at = now(), status = 'removed', updated_at = now() where id = $1 and org_id = $2 returning *`,
        [member.id, ctx.orgId],
      );
      return { data: memberView(row!) };
    });
    await this.orgs.forget(ctx.slug, removed.data.email);
    return removed;
  }

  /** Before anyone is asked to confirm a change to a member: the member exists here. */
  async checkMember(principal: KaduPrincipal, memberId: string): Promise<void> {
    await this.load(this.db, (await this.orgs.of(principal)).orgId, memberId);
  }

  private async keepAnOwner(tx: Queryable, orgId: string): Promise<void> {
    const [{ owners }] = (await tx.query<{ owners: number }>(
      `select count(*)::int as owners from members where org_id = $1 and role = 'owner' and deleted_at is null`,
      [orgId],
    )) as [{ owners: number }];
    if (owners <= 1)
      throw new ApiError(409, 'last_owner', 'Last owner', 'The organisation must keep at least one owner');
  }

  private async load(q: Queryable, orgId: string, memberId: string): Promise<MemberRow> {
    const id = assertId(memberId, 'member');
    const [row] = await q.query<MemberRow>(
      'select * from members where id = $1 and org_id = $2 and deleted_at is null',
      [id, orgId],
    );
    if (!row) throw ApiError.notFound('member');
    return row;
  }
}
