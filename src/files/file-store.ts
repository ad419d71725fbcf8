import { ApiError } from '../common/api-error.js';

/** What a store needs to know about a file to hand out its URLs. */
export interface StoredFile {
  readonly orgId: string;
  readonly id: string;
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
}

export interface Measured {
  readonly size: number;
  readonly sha256: string;
}

/**
 * Where file bytes live. Clients move bytes with presigned URLs only — never through the API or a
 * tool. Embedded: the data folder, behind URLs this app signs and serves (`LocalFileStore`).
 * Distributed: an S3-compatible bucket every replica shares, whose own presigned URLs the clients
 * use directly (`S3FileStore`).
 */
export interface FileStore {
  /** A short-lived URL to PUT exactly the declared bytes (with the declared Content-Type). */
  uploadUrl(file: StoredFile, expiresAt: Date): Promise<string>;
  /** A short-lived URL to GET a ready file. Throws FileGone when its bytes are missing. */
  downloadUrl(file: StoredFile, expiresAt: Date): Promise<string>;
  /** Size and SHA-256 of what was uploaded to the upload URL; undefined when nothing was. */
  measureUpload(orgId: string, fileId: string): Promise<Measured | undefined>;
  /** Makes the upload just verified the file's bytes: nothing sent to its URL later changes them. */
  commitUpload(orgId: string, fileId: string): Promise<void>;
  /** A ready file's bytes (execution inputs). Throws FileGone when they are missing. */
  read(orgId: string, fileId: string): Promise<Buffer>;
  /** Stores an output file's bytes, ready at once. */
  write(orgId: string, fileId: string, contentType: string, bytes: Buffer): Promise<void>;
}

export const FILE_STORE = Symbol('FILE_STORE');

/** The record says ready, but its bytes are not in the store (deleted, lost, another machine's disk). */
export class FileGone extends Error {
  constructor(fileId: string) {
    super(`the bytes of file ${fileId} are missing from the store`);
    this.name = 'FileGone';
  }
}

export class FileTooLargeError extends Error {}

/** 410 in the API envelope: the file exists, its bytes do not any more. */
export function fileGoneError(): ApiError {
  return new ApiError(410, 'file_gone', 'File gone', "The file's bytes are no longer available; upload it again");
}

export function storageUnavailable(): ApiError {
  return new ApiError(
    503,
    'storage_unavailable',
    'Service unavailable',
    'The file store cannot be reached; retry shortly',
  ).withHeader('Retry-After', '5');
}
