import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertId } from '../common/ids.js';
import type { S3Config } from '../config/app-config.js';
import { FileGone, type FileStore, type Measured, storageUnavailable, type StoredFile } from './file-store.js';

const NOT_FOUND = new Set(['NoSuchKey', 'NotFound']);

function notFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (NOT_FOUND.has(error.name) || error.$metadata.httpStatusCode === 404);
}

/** A refusal the store owns (4xx: wrong credentials, missing bucket) is a fault to log; the rest is the store being away. */
function unreachable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return (error.$metadata.httpStatusCode ?? 500) >= 500;
  return true;
}

/**
 * The distributed topology's store: an S3-compatible bucket shared by every replica. Clients PUT
 * and GET the bucket directly with its own presigned URLs (the bytes never pass through a
 * replica); the PUT URL signs the declared Content-Type and Content-Length, so the bucket refuses
 * any other size. Uploads land under `uploads/`; confirm measures them and copies the verified
 * object under `files/`, the key downloads and executions read — so a PUT replayed on the upload
 * URL after confirm never changes a ready file. Every call is bounded (`timeoutMs`).
 */
export class S3FileStore implements FileStore {
  private readonly client: S3Client;
  /** Signs URLs with the endpoint clients use (S3_PUBLIC_ENDPOINT), when it differs. */
  private readonly presigner: S3Client;

  constructor(
    private readonly config: S3Config,
    private readonly timeoutMs: number,
  ) {
    this.client = this.makeClient(config.endpoint);
    this.presigner = config.publicEndpoint ? this.makeClient(config.publicEndpoint) : this.client;
  }

  private makeClient(endpoint: string | undefined): S3Client {
    return new S3Client({
      region: this.config.region,
      ...(endpoint ? { endpoint } : {}),
      ...(this.config.credentials ? { credentials: this.config.credentials } : {}),
      forcePathStyle: this.config.forcePathStyle,
      // Checksums only where S3 requires them: a presigned PUT must not carry one for an empty body.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Connect and socket-idle bounds; whole calls are also bounded by an abort signal.
      requestHandler: { connectionTimeout: this.timeoutMs, requestTimeout: this.timeoutMs },
      maxAttempts: 2,
    });
  }

  private key(area: 'uploads' | 'files', orgId: string, fileId: string): string {
    return `${this.config.prefix}${area}/${assertId(orgId, 'organization')}/${assertId(fileId, 'file')}`;
  }

  uploadUrl(file: StoredFile, expiresAt: Date): Promise<string> {
    const command = new PutObjectCommand({
      Bucket: this.config.bucket,
      Key: this.key('uploads', file.orgId, file.id),
      ContentType: file.contentType,
      ContentLength: file.size,
    });
    return getSignedUrl(this.presigner, command, {
      expiresIn: secondsUntil(expiresAt),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
  }

  async downloadUrl(file: StoredFile, expiresAt: Date): Promise<string> {
    await this.call(file.id, (abortSignal) =>
      this.client.send(
        new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.key('files', file.orgId, file.id) }),
        { abortSignal },
      ),
    );
    const command = new GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.key('files', file.orgId, file.id),
      ResponseContentType: file.contentType,
      ResponseContentDisposition: `attachment; filename="${file.name.replace(/["\\]/g, '_')}"`,
      ResponseCacheControl: 'private, no-store',
    });
    return getSignedUrl(this.presigner, command, { expiresIn: secondsUntil(expiresAt) });
  }

  async measureUpload(orgId: string, fileId: string): Promise<Measured | undefined> {
    let body: Readable;
    try {
      body = await this.body(this.key('uploads', orgId, fileId), fileId);
    } catch (error) {
      if (error instanceof FileGone) return undefined;
      throw error;
    }
    const hash = createHash('sha256');
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    try {
      await pipeline(body, hash);
    } catch {
      throw storageUnavailable();
    }
    return { size, sha256: hash.digest('hex') };
  }

  async commitUpload(orgId: string, fileId: string): Promise<void> {
    const source = this.key('uploads', orgId, fileId);
    const target = this.key('files', orgId, fileId);
    await this.call(fileId, (abortSignal) =>
      this.client.send(
        new CopyObjectCommand({
          Bucket: this.config.bucket,
          Key: target,
          CopySource: `${this.config.bucket}/${source}`,
        }),
        { abortSignal },
      ),
    );
    // The upload object is no longer needed; if this fails it is only garbage (a lifecycle rule on uploads/ clears it).
    await this.call(fileId, (abortSignal) =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: source }), { abortSignal }),
    ).catch(() => undefined);
  }

  async read(orgId: string, fileId: string): Promise<Buffer> {
    const body = await this.body(this.key('files', orgId, fileId), fileId);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of body) chunks.push(chunk as Buffer);
    } catch {
      throw storageUnavailable();
    }
    return Buffer.concat(chunks);
  }

  async write(orgId: string, fileId: string, contentType: string, bytes: Buffer): Promise<void> {
    const command = new PutObjectCommand({
      Bucket: this.config.bucket,
      Key: this.key('files', orgId, fileId),
      ContentType: contentType,
      Body: bytes,
    });
    await this.call(fileId, (abortSignal) => this.client.send(command, { abortSignal }));
  }

  /** An object's body as a stream; the first byte is awaited within the bound, then the socket-idle bound applies. */
  private async body(key: string, fileId: string): Promise<Readable> {
    const out = await this.call(fileId, (abortSignal) =>
      this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key }), { abortSignal }),
    );
    if (!(out.Body instanceof Readable)) throw storageUnavailable();
    return out.Body;
  }

  /**
   * One call, bounded until its answer starts (a body then streams under the socket-idle bound).
   * A missing object is FileGone; the store away or too slow is 503.
   */
  private async call<T>(fileId: string, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    try {
      return await send(controller.signal);
    } catch (error) {
      if (notFound(error)) throw new FileGone(fileId);
      if (unreachable(error)) throw storageUnavailable();
      throw new Error(`the object store refused the call: ${(error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

function secondsUntil(expiresAt: Date): number {
  return Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000));
}
