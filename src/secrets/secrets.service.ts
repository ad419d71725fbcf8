import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpTool } from '@kobana/nest-mcp';
import { IsString, Matches, MaxLength } from 'class-validator';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ApiError } from '../common/api-error.js';
import { assertId, newId } from '../common/ids.js';
import { limitOf, PageQueryDto, Paginator } from '../common/pagination.js';
import { iso } from '../common/serialize.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';
import { hints, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { Omittable } from '../common/validation.js';
import { SecretEntryLinks } from './secret-entry-links.js';
import { SecretEntryEnvelope, SecretEnvelope, SecretPage } from './secret.response.js';

export class CreateSecretDto {
  @IsString()
  @Matches(/^[A-Z][A-Z0-9_]{0,63}$/, { message: 'name must be UPPER_SNAKE_CASE, up to 64 characters' })
  name: string;

  @Omittable()
  @IsString()
  @MaxLength(500)
  description?: string;
}

interface SecretRow {
  id: string;
  org_id: string;
  name: string;
  description: string;
  version: number;
  rotated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const secretView = (row: SecretRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  version: row.version,
  has_value: row.version > 0,
  rotated_at: iso(row.rotated_at),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

/**
 * Secrets: metadata through the API and tools; the value never passes through a model or a
 * response. Creating or rotating returns a short-lived link to a page where a person types it.
 */
@Injectable()
export class SecretsService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
    private readonly paginator: Paginator,
    private readonly links: SecretEntryLinks,
  ) {}

  @McpTool({
    name: 'kadu_secrets_list',
    output: SecretPage,
    title: 'List secrets',
    description: 'Lists secrets (metadata only; values are never returned).',
    annotations: hints('read', true),
    ...PERMISSIONS.secretsRead,
  })
  async list(@McpCaller() principal: KaduPrincipal, @McpInput() query: PageQueryDto) {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const after = this.paginator.after(query.cursor, {});
    const rows = await this.db.query<SecretRow>(
      `select * from secrets where org_id = $1 and deleted_at is null and ($3::text is null or id < $3) order by id desc limit $2`,
      [ctx.orgId, limit + 1, after ?? null],
    );
    return this.paginator.page(rows.map(secretView), limit, {});
  }

  @McpTool({
    name: 'kadu_secrets_get',
    output: SecretEnvelope,
    title: 'Get a secret',
    description: "Gets a secret's metadata (never its value).",
    annotations: hints('read', true),
    ...PERMISSIONS.secretsRead,
  })
  async get(@McpCaller() principal: KaduPrincipal, @McpArg('secret_id', idArg('secret')) secretId: string) {
    const ctx = await this.orgs.of(principal);
    return { data: secretView(await this.load(this.db, ctx.orgId, secretId)) };
  }

  async create(principal: KaduPrincipal, dto: CreateSecretDto) {
    const ctx = await this.orgs.of(principal);
    return this.db.transaction(async (tx) => {
      const clash = await tx.query('select 1 from secrets where org_id = $1 and name = $2 and deleted_at is null', [
        ctx.orgId,
        dto.name,
      ]);
      if (clash.length) throw new ApiError(409, 'conflict', 'Conflict', `A secret named ${dto.name} exists`, 'name');
      const [row] = await tx.query<SecretRow>(
        'insert into secrets (id, org_id, name, description) values ($1, $2, $3, $4) returning *',
        [newId(), ctx.orgId, dto.name, dto.description ?? ''],
      );
      return { data: { secret: secretView(row!), ...(await this.links.issue(tx, ctx.orgId, row!.id, ctx.memberId)) } };
    });
  }

  @McpTool({
    name: 'kadu_secrets_rotate',
    output: SecretEntryEnvelope,
    title: 'Rotate a secret',
    description:
      'Starts the rotation of a secret: returns a short-lived link for the person to type the new value. The value never passes through you.',
    annotations: hints('destructive', false),
    ...PERMISSIONS.secretsWrite,
    preflight: SecretsService.prototype.get,
  })
  async rotate(@McpCaller() principal: KaduPrincipal, @McpArg('secret_id', idArg('secret')) secretId: string) {
    const ctx = await this.orgs.of(principal);
    return this.db.transaction(async (tx) => {
      // The row lock orders concurrent rotations (any replica): each cancels the links issued before it.
      const row = await this.load(tx, ctx.orgId, secretId, { lock: true });
      return { data: { secret: secretView(row), ...(await this.links.issue(tx, ctx.orgId, row.id, ctx.memberId)) } };
    });
  }

  @McpTool({
    name: 'kadu_secrets_delete',
    output: SecretEnvelope,
    title: 'Delete a secret',
    description: 'Deletes a secret and its stored value; tasks that use it will fail to read it.',
    annotations: hints('destructive', false),
    ...PERMISSIONS.secretsWrite,
    preflight: SecretsService.prototype.get,
  })
  async remove(@McpCaller() principal: KaduPrincipal, @McpArg('secret_id', idArg('secret')) secretId: string) {
    const ctx = await this.orgs.of(principal);
    const id = assertId(secretId, 'secret');
    const [row] = await this.db.query<SecretRow>(
      'update secrets set deleted_at = now(), value_sealed = null, updated_at = now() where id = $1 and org_id = $2 and deleted_at is null returning *',
      [id, ctx.orgId],
    );
    if (!row) throw ApiError.notFound('secret');
    return { data: secretView(row) };
  }

  private async load(q: Queryable, orgId: string, secretId: string, { lock = false } = {}): Promise<SecretRow> {
    const id = assertId(secretId, 'secret');
    const [row] = await q.query<SecretRow>(
      `select * from secrets where id = $1 and org_id = $2 and deleted_at is null${lock ? ' for update' : ''}`,
      [id, orgId],
    );
    if (!row) throw ApiError.notFound('secret');
    return row;
  }
}
