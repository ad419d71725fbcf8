import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { assertId } from '../common/ids.js';

export class FileTooLargeError extends Error {}

/** File bytes on local disk under the data folder, one file per object, named by ids only. */
@Injectable()
export class FileStorage {
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = join(config.dataDir, 'files');
  }

  private path(orgId: string, fileId: string): string {
    return join(this.root, assertId(orgId, 'organization'), assertId(fileId, 'file'));
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

  async write(orgId: string, fileId: string, bytes: Buffer): Promise<void> {
    mkdirSync(join(this.root, orgId), { recursive: true });
    await writeFile(this.path(orgId, fileId), bytes);
  }

  read(orgId: string, fileId: string): Promise<Buffer> {
    return readFile(this.path(orgId, fileId));
  }

  stream(orgId: string, fileId: string): Readable {
    return createReadStream(this.path(orgId, fileId));
  }

  /** Size and SHA-256 of what was actually stored, or undefined when nothing was uploaded. */
  async measure(orgId: string, fileId: string): Promise<{ size: number; sha256: string } | undefined> {
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
}
