import { pipeline } from 'node:stream/promises';
import {
  applyDecorators,
  Controller,
  Get,
  HttpCode,
  Inject,
  Logger,
  Param,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { isId } from '../common/ids.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { FILE_STORE, FileGone, fileGoneError, type FileStore, FileTooLargeError } from './file-store.js';
import type { FileRow } from './file.view.js';
import { LocalFileStore } from './local-file-store.js';
import { UrlSigner, type SignedPurpose } from './url-signer.js';

/** How the API description shows a presigned URL: its signed query, and no bearer token. */
const SignedUrl = (summary: string, action: string): MethodDecorator =>
  applyDecorators(
    ApiOperation({
      summary,
      description: `The ${action} URL that file creation answers, as given (never build it yourself): the signature in its query is the credential, for one file, one action and a short time. Only in the embedded topology; with an object store the URLs point at the bucket and this route answers 404.`,
    }),
    ApiQuery({ name: 'org', required: true, description: 'Part of the signed URL', schema: { type: 'string' } }),
    ApiQuery({
      name: 'expires',
      required: true,
      description: 'Part of the signed URL: when it expires (Unix seconds)',
      schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
    }),
    ApiQuery({
      name: 'sig',
      required: true,
      description: 'Part of the signed URL: its signature',
      schema: { type: 'string' },
    }),
    ApiResponse({
      status: 403,
      description: '`invalid_signature`: the URL was altered; `url_expired`: ask for a new one',
    }),
  );

/**
 * The embedded topology's presigned URLs themselves (with an object store, clients use the
 * bucket's URLs and these routes answer 404). The signature is the credential: it names one
 * object, one action and an expiry. An upload URL works once; a tampered or expired URL is
 * refused; a file whose bytes are gone answers 410, never a broken stream.
 */
@Controller('api/v1')
export class FileTransferController {
  private readonly logger = new Logger('Files');

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly signer: UrlSigner,
    @Inject(FILE_STORE) private readonly store: FileStore,
  ) {}

  private get local(): LocalFileStore {
    if (!(this.store instanceof LocalFileStore)) throw ApiError.notFound('route');
    return this.store;
  }

  @Put('uploads/:id')
  @HttpCode(204)
  @SignedUrl('Upload the bytes of a file', 'upload')
  @ApiConsumes('application/octet-stream')
  @ApiBody({
    description: 'Exactly the bytes declared at creation (size and sha256); any content type',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiResponse({ status: 204, description: 'Stored; confirm the file next' })
  @ApiResponse({ status: 400, description: '`upload_failed`: the upload was interrupted; retry with the same URL' })
  @ApiResponse({ status: 404, description: '`not_found`: no such file (or an object store holds the files)' })
  @ApiResponse({ status: 409, description: '`upload_url_used`: an upload URL works once; create a new file' })
  @ApiResponse({ status: 413, description: '`payload_too_large`: over the largest file accepted' })
  async upload(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() req: Request): Promise<void> {
    const storage = this.local;
    const orgId = this.verify('upload', id, query);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.config.maxFileBytes) throw tooLarge(this.config.maxFileBytes);
    // Claim the URL before reading: a second PUT (replay, race) is refused, one object per URL.
    const [claimed] = await this.db.query<{ id: string }>(
      `update files set uploaded_at = now(), updated_at = now()
        where id = $1 and org_id = $2 and deleted_at is null and status = 'pending_upload' and uploaded_at is null returning id`,
      [id, orgId],
    );
    if (!claimed) {
      const [file] = await this.db.query<FileRow>(
        'select * from files where id = $1 and org_id = $2 and deleted_at is null',
        [id, orgId],
      );
      if (!file) throw ApiError.notFound('file');
      throw new ApiError(
        409,
        'upload_url_used',
        'Upload URL already used',
        'This upload URL was already used; create a new file',
      );
    }
    try {
      await storage.writeStream(orgId, id, req, this.config.maxFileBytes);
    } catch (error) {
      await this.db.query('update files set uploaded_at = null where id = $1', [id]);
      if (error instanceof FileTooLargeError) throw tooLarge(this.config.maxFileBytes);
      throw new ApiError(400, 'upload_failed', 'Upload failed', 'The upload was interrupted; retry with the same URL');
    }
  }

  @Get('downloads/:id')
  @SignedUrl('Download the bytes of a file', 'download')
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({
    description: "The file's bytes, with its content type and an attachment Content-Disposition",
    schema: { type: 'string', format: 'binary' },
  })
  @ApiResponse({ status: 404, description: '`not_found`: no such ready file (or an object store holds the files)' })
  @ApiResponse({ status: 410, description: "`file_gone`: the file's bytes are no longer available; upload it again" })
  async download(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const storage = this.local;
    const orgId = this.verify('download', id, query);
    const [file] = await this.db.query<FileRow>(
      `select * from files where id = $1 and org_id = $2 and deleted_at is null and status = 'ready'`,
      [id, orgId],
    );
    if (!file) throw ApiError.notFound('file');
    let opened: Awaited<ReturnType<LocalFileStore['open']>>;
    try {
      opened = await storage.open(orgId, id);
    } catch (error) {
      throw error instanceof FileGone ? fileGoneError() : error;
    }
    if (opened.size !== Number(file.size)) {
      // Damaged bytes are as good as gone: never serve what the record does not describe.
      opened.stream.destroy();
      throw fileGoneError();
    }
    res.setHeader('Content-Type', file.content_type);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', `attachment; filename="${file.name.replace(/["\\]/g, '_')}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      await pipeline(opened.stream, res);
    } catch (error) {
      // Headers are sent: the only honest answer left is to cut the response short.
      if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn(`download of file ${id} stopped: ${(error as Error).message}`);
      res.destroy();
    }
  }

  private verify(purpose: SignedPurpose, id: string, query: Record<string, unknown>): string {
    if (!isId(id)) throw new ApiError(403, 'invalid_signature', 'Invalid signature', 'The URL is not valid');
    const verdict = this.signer.verify(purpose, id, query);
    if (verdict === 'expired')
      throw new ApiError(403, 'url_expired', 'URL expired', 'The URL has expired; ask for a new one');
    if (verdict === 'invalid' || !isId(verdict.orgId))
      throw new ApiError(403, 'invalid_signature', 'Invalid signature', 'The URL is not valid');
    return verdict.orgId;
  }
}

function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'payload_too_large', 'Payload too large', `Files are limited to ${limit} bytes`);
}
