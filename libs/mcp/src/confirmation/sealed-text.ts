import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Authenticated encryption (AES-256-GCM) of a short text under a key derived from the module's
 * state key for one purpose, so that what one purpose seals another cannot open. `context` binds
 * the text to where it is kept (an approval id, say): moved elsewhere, it does not open.
 */
export class SealedText {
  private readonly key: Buffer;

  constructor(secret: Buffer, purpose: string) {
    this.key = createHash('sha256').update(`${purpose}\0`).update(secret).digest();
  }

  seal(text: string, context = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(context));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The text, or undefined for anything forged, altered, truncated, of another key or another context. */
  open(sealed: unknown, context = ''): string | undefined {
    if (typeof sealed !== 'string' || sealed.length > 16_384 || !sealed.startsWith(`${VERSION}.`)) return undefined;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64url');
    if (raw.length < 29 || raw.toString('base64url') !== sealed.slice(VERSION.length + 1)) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(aad(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

// Without a context the additional data is the version alone, as request states have always been sealed.
const aad = (context: string): Buffer => Buffer.from(context ? `${VERSION}\0${context}` : VERSION);
