import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Sealed `requestState` (2026-07-28 basic/patterns/mrtr §Server Requirements): authenticated
 * encryption (AES-256-GCM) under a key shared by every replica, binding the caller, the method,
 * the target (tool, prompt or URI), a digest of the arguments, an expiry and a single-use nonce.
 * The client holds it but can neither read nor alter it.
 */
export interface RequestStateClaims {
  /** Who asked (the principal key). */
  readonly sub: string;
  readonly method: string;
  readonly target: string;
  /** SHA-256 of the canonical arguments. */
  readonly digest: string;
  /** Expiry, epoch milliseconds. */
  readonly exp: number;
  readonly nonce: string;
  /** What the handler asked for, by key and kind, so that the answers can be checked. */
  readonly asked: Readonly<Record<string, string>>;
  /** The handler's own state between rounds. */
  readonly data?: unknown;
}

const VERSION = 'v1';

export class RequestStateSealer {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = createHash('sha256').update('mcp-request-state\0').update(secret).digest();
  }

  seal(claims: RequestStateClaims): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(VERSION));
    const body = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The claims, or undefined for anything forged, altered, truncated or of another key. */
  open(sealed: unknown): RequestStateClaims | undefined {
    if (typeof sealed !== 'string' || sealed.length > 16_384 || !sealed.startsWith(`${VERSION}.`)) return undefined;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < 29 || raw.toString('base64url') !== sealed.slice(VERSION.length + 1)) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(VERSION));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as RequestStateClaims;
    } catch {
      return undefined;
    }
  }
}

export function argumentDigest(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url');
}
