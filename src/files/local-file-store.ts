import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type { AppConfig } from '../config/app-config.js';
import { assertId } from '../common/ids.js';
import { FileGone, type FileStore, FileTooLargeError, type Measured, type StoredFile } from './file-store.js';
import type { UrlSigner } from './url-signer.js';

const missing = (error: unknown): boolean =>
  ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * The embedded topology's store: one file per object under the data folder, named by ids only,
 * behind URLs this app signs (UrlSigner) and serves itself (FileTransferController). An upload URL
 * works once: the PUT claims it before writing, so commitUpload has nothing left to do.
 */
export class LocalFileStore implements FileStore {
  private readonly root: string;

  constructor(
    private readonly config: AppConfig,
    private readonly signer: UrlSigner,
  ) {
    this.root = join(config.dataDir, 'files');
  }

  private path(orgId: string, fileId: string): string {
    return join(this.root, assertId(orgId, 'organization'), assertId(fileId, 'file'));
  }

  uploadUrl(file: StoredFile, expiresAt: Date): Promise<string> {
    return Promise.resolve(
      `${this.config.publicBaseUrl}/api/v1/uploads/${file.id}?${this.signer.sign('upload', file.orgId, file.id, expiresAt)}`,
    );
  }

  async downloadUrl(file: StoredFile, expiresAt: Date): Promise<string> {
    await this.sizeOf(file.orgId, file.id);
    return `${this.config.publicBaseUrl}/api/v1/downloads/${file.id}?${this.signer.sign('download', file.orgId, file.id, expiresAt)}`;
  }

  /** Streams a body to disk, refusing (and removing) anything past `maxBytes`. */
  async writeStream(orgId: string, fileId: string, body: Readable, maxBytes: number): Promise<number> {
    mkdirSync(join(this.root, orgId), { recursive: true });
    const target = this.path(orgId, fileId);
    let size = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        done(size > maxBytes ? new FileTooLargeError() : null, chunk);
      },
    });
    try {
      await pipeline(body, limiter, createWriteStream(target));
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
    return size;
  }

  async write(orgId: string, fileId: string, _contentType: string, bytes: Buffer): Promise<void> {
    mkdirSync(join(this.root, orgId), { recursive: true });
    await writeFile(this.path(orgId, fileId), bytes);
  }

  async read(orgId: string, fileId: string): Promise<Buffer> {
    try {
      return await readFile(this.path(orgId, fileId));
    } catch (error) {
      if (missing(error)) throw new FileGone(fileId);
      throw error;
    }
  }

  /**
   * The bytes opened for reading, with their size. Opening first means a missing file is known
   * before any header is sent; the stream then reads the open descriptor.
   */
  async open(orgId: string, fileId: string): Promise<{ stream: Readable; size: number }> {
    let handle;
    try {
      handle = await open(this.path(orgId, fileId), 'r');
    } catch (error) {
      if (missing(error)) throw new FileGone(fileId);
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async measureUpload(orgId: string, fileId: string): Promise<Measured | undefined> {
    const path = this.path(orgId, fileId);
    try {
      const { size } = await stat(path);
      const hash = createHash('sha256');
      await pipeline(createReadStream(path), hash);
      return { size, sha256: hash.digest('hex') };
    } catch {
      return undefined;
    }
  }

  commitUpload(): Promise<void> {
    return Promise.resolve();
  }

  private async sizeOf(orgId: string, fileId: string): Promise<number> {
    try {
      return (await stat(this.path(orgId, fileId))).size;
    } catch (error) {
      if (missing(error)) throw new FileGone(fileId);
      throw error;
    }
  }
}
