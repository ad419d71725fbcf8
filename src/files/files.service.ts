import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpResourceTemplate, McpTool } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { ApiError } from '../common/api-error.js';
import { IdempotencyService } from '../common/idempotency.service.js';
import { assertId, newId } from '../common/ids.js';
import { limitOf, Paginator } from '../common/pagination.js';
import type { Envelope, ListEnvelope } from '../common/serialize.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { hints, IDEMPOTENCY_KEY, idArg } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { CreateFileDto, ListFilesQueryDto } from './file.dto.js';
import { FILE_STORE, FileGone, fileGoneError, type FileStore, type StoredFile } from './file-store.js';
import { type FileRow, fileView, type FileView } from './file.view.js';
import { DownloadEnvelope, FileCreatedEnvelope, FileEnvelope, FilePage } from './file.response.js';
import { FILE_URI_TEMPLATE } from './file-uri.js';

/** Files travel by presigned URL, never through the API body or a tool (docs/kadu.md). */
@Injectable()
export class FilesService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly orgs: OrgContextService,
    private readonly idempotency: IdempotencyService,
    private readonly paginator: Paginator,
    @Inject(FILE_STORE) private readonly store: FileStore,
  ) {}

  @McpTool({
    name: 'kadu_files_create',
    output: FileCreatedEnvelope,
    title: 'Create a file upload',
    description:
      'Registers an input file and returns a short-lived upload_url: PUT the exact bytes there (Content-Type as declared), then call kadu_files_confirm. Pass the id in input_file_ids of kadu_tasks_run.',
    annotations: hints('write', false),
    ...PERMISSIONS.filesWrite,
  })
  async create(
    @McpCaller() principal: KaduPrincipal,
    @McpInput() dto: CreateFileDto,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<{ file: FileView; upload_url: string; upload_expires_at: string }>> {
    const ctx = await this.orgs.of(principal);
    if (dto.size > this.config.maxFileBytes) {
      throw new ApiError(
        422,
        'file_too_large',
        'File too large',
        `Files are limited to ${this.config.maxFileBytes} bytes`,
        'size',
      );
    }
    return this.idempotency.run(ctx.orgId, idempotencyKey, 'files.create', dto, 201, async () => {
      const [row] = await this.db.query<FileRow>(
        `insert into files (id, org_id, name, content_type, size, sha256, status, purpose)
         values ($1, $2, $3, $4, $5, $6, 'pending_upload', 'input') returning *`,
        [newId(), ctx.orgId, dto.name, dto.content_type, dto.size, dto.sha256],
      );
      const expires = new Date(Date.now() + this.config.uploadUrlTtlSeconds * 1000);
      return {
        data: {
          file: fileView(row!),
          upload_url: await this.store.uploadUrl(stored(row!), expires),
          upload_expires_at: expires.toISOString(),
        },
      };
    });
  }

  @McpTool({
    name: 'kadu_files_confirm',
    output: FileEnvelope,
    title: 'Confirm an upload',
    description:
      'Checks the uploaded bytes against the declared size and sha256; the file becomes ready, or rejected on a mismatch.',
    annotations: hints('write', true),
    ...PERMISSIONS.filesWrite,
  })
  async confirm(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('file_id', idArg('file')) fileId: string,
    @McpArg('idempotency_key', IDEMPOTENCY_KEY) idempotencyKey?: string,
  ): Promise<Envelope<FileView>> {
    const ctx = await this.orgs.of(principal);
    return this.idempotency.run(ctx.orgId, idempotencyKey, `files.confirm:${fileId}`, {}, 200, async () => {
      const file = await this.load(ctx.orgId, fileId);
      if (file.status === 'ready') return { data: fileView(file) };
      if (file.status === 'rejected')
        throw new ApiError(409, 'invalid_state', 'Invalid state', 'This file was rejected; create a new one');
      const uploaded = await this.store.measureUpload(ctx.orgId, file.id);
      if (!uploaded) throw uploadMissing();
      const matches = uploaded.size === Number(file.size) && uploaded.sha256 === file.sha256;
      if (matches) {
        try {
          await this.store.commitUpload(ctx.orgId, file.id);
        } catch (error) {
          throw error instanceof FileGone ? uploadMissing() : error;
        }
      }
      const [row] = await this.db.query<FileRow>(
        `update files set status = $3, updated_at = now() where id = $1 and org_id = $2 returning *`,
        [file.id, ctx.orgId, matches ? 'ready' : 'rejected'],
      );
      if (!matches) {
        throw new ApiError(
          422,
          'file_mismatch',
          'File mismatch',
          `Uploaded ${uploaded.size} bytes with sha256 ${uploaded.sha256}; declared ${file.size} bytes with sha256 ${file.sha256}`,
        );
      }
      return { data: fileView(row!) };
    });
  }

  @McpTool({
    name: 'kadu_files_list',
    output: FilePage,
    title: 'List files',
    description: 'Lists files (inputs you uploaded and outputs of executions), newest first.',
    annotations: hints('read', true),
    ...PERMISSIONS.filesRead,
  })
  async list(
    @McpCaller() principal: KaduPrincipal,
    @McpInput() query: ListFilesQueryDto,
  ): Promise<ListEnvelope<FileView>> {
    const ctx = await this.orgs.of(principal);
    const limit = limitOf(query);
    const filters = { status: query.status, purpose: query.purpose };
    const after = this.paginator.after(query.cursor, filters);
    const rows = await this.db.query<FileRow>(
      `select * from files where org_id = $1 and deleted_at is null
          and ($3::text is null or status = $3) and ($4::text is null or purpose = $4) and ($5::text is null or id < $5)
        order by id desc limit $2`,
      [ctx.orgId, limit + 1, query.status ?? null, query.purpose ?? null, after ?? null],
    );
    return this.paginator.page(rows.map(fileView), limit, filters);
  }

  @McpResourceTemplate({
    uriTemplate: FILE_URI_TEMPLATE,
    name: 'file',
    title: 'File',
    description: "A file's metadata (never its bytes).",
    mimeType: 'application/json',
    bind: { id: 'file_id' },
    ...PERMISSIONS.filesRead,
  })
  @McpTool({
    name: 'kadu_files_get',
    output: FileEnvelope,
    title: 'Get a file',
    description: "Gets a file's metadata (never its bytes).",
    annotations: hints('read', true),
    ...PERMISSIONS.filesRead,
  })
  async get(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('file_id', idArg('file')) fileId: string,
  ): Promise<Envelope<FileView>> {
    const ctx = await this.orgs.of(principal);
    return { data: fileView(await this.load(ctx.orgId, fileId)) };
  }

  @McpTool({
    name: 'kadu_files_download',
    output: DownloadEnvelope,
    title: 'Get a download URL',
    description:
      'Returns a short-lived URL to download a ready file. The bytes never pass through this tool. A file whose bytes are gone answers file_gone.',
    annotations: hints('read', true),
    ...PERMISSIONS.filesRead,
  })
  async downloadUrl(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('file_id', idArg('file')) fileId: string,
  ): Promise<Envelope<{ url: string; expires_at: string }>> {
    const ctx = await this.orgs.of(principal);
    const file = await this.load(ctx.orgId, fileId);
    if (file.status !== 'ready')
      throw new ApiError(409, 'invalid_state', 'Invalid state', 'Only ready files can be downloaded');
    const expires = new Date(Date.now() + this.config.downloadUrlTtlSeconds * 1000);
    let url: string;
    try {
      url = await this.store.downloadUrl(stored(file), expires);
    } catch (error) {
      throw error instanceof FileGone ? fileGoneError() : error;
    }
    return { data: { url, expires_at: expires.toISOString() } };
  }

  @McpTool({
    name: 'kadu_files_delete',
    output: FileEnvelope,
    title: 'Delete a file',
    description: 'Deletes a file: it can no longer be used as an execution input or downloaded.',
    annotations: hints('destructive', true),
    ...PERMISSIONS.filesWrite,
    preflight: FilesService.prototype.get,
  })
  async remove(
    @McpCaller() principal: KaduPrincipal,
    @McpArg('file_id', idArg('file')) fileId: string,
  ): Promise<Envelope<FileView>> {
    const ctx = await this.orgs.of(principal);
    const id = assertId(fileId, 'file');
    const [row] = await this.db.query<FileRow>(
      'update files set deleted_at = now(), updated_at = now() where id = $1 and org_id = $2 and deleted_at is null returning *',
      [id, ctx.orgId],
    );
    if (!row) throw ApiError.notFound('file');
    return { data: fileView(row) };
  }

  /** A live file of the org, or 404. */
  async load(orgId: string, fileId: string): Promise<FileRow> {
    const id = assertId(fileId, 'file');
    const [row] = await this.db.query<FileRow>(
      'select * from files where id = $1 and org_id = $2 and deleted_at is null',
      [id, orgId],
    );
    if (!row) throw ApiError.notFound('file');
    return row;
  }

  /** An output file written by an execution: stored, measured and ready at once. */
  async createOutput(orgId: string, name: string, contentType: string, bytes: Buffer): Promise<FileRow> {
    const id = newId();
    await this.store.write(orgId, id, contentType, bytes);
    const [row] = await this.db.query<FileRow>(
      `insert into files (id, org_id, name, content_type, size, sha256, status, purpose, uploaded_at)
       values ($1, $2, $3, $4, $5, $6, 'ready', 'output', now()) returning *`,
      [id, orgId, name, contentType, bytes.length, createHash('sha256').update(bytes).digest('hex')],
    );
    return row!;
  }
}

function stored(row: FileRow): StoredFile {
  return { orgId: row.org_id, id: row.id, name: row.name, contentType: row.content_type, size: Number(row.size) };
}

function uploadMissing(): ApiError {
  return new ApiError(409, 'upload_missing', 'Upload missing', 'Nothing was uploaded to the upload_url yet');
}
