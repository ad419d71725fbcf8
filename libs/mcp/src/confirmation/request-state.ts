import { createHash } from 'node:crypto';
import { SealedText } from './sealed-text.js';

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

export class RequestStateSealer {
  private readonly text: SealedText;

  constructor(secret: Buffer) {
    this.text = new SealedText(secret, 'mcp-request-state');
  }

  seal(claims: RequestStateClaims): string {
    return this.text.seal(JSON.stringify(claims));
  }

  /** The claims, or undefined for anything forged, altered, truncated or of another key. */
  open(sealed: unknown): RequestStateClaims | undefined {
    const text = this.text.open(sealed);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as RequestStateClaims;
    } catch {
      return undefined;
    }
  }
}

export function argumentDigest(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url');
}
