import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque list cursors: the payload (which list, for which visibility, from which offset) is
 * MAC-ed with the module's key, so a cursor cannot be forged or edited, and it stays valid on
 * every replica that shares the key. A list whose content changed yields a different `scope`,
 * which invalidates old cursors instead of silently skipping or repeating items.
 */
export interface CursorPayload {
  /** Digest of what is being paged (list kind + visible items). */
  readonly scope: string;
  readonly offset: number;
}

const b64url = (buf: Buffer): string => buf.toString('base64url');

export function sealCursor(key: Buffer, payload: CursorPayload): string {
  const body = b64url(Buffer.from(`${payload.scope}:${payload.offset}`, 'utf8'));
  return `${body}.${b64url(mac(key, body))}`;
}

export function openCursor(key: Buffer, cursor: unknown, scope: string): number | undefined {
  if (typeof cursor !== 'string' || cursor.length > 512) return undefined;
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  const body = cursor.slice(0, dot);
  const tag = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const expected = mac(key, body);
  if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) return undefined;
  const text = Buffer.from(body, 'base64url').toString('utf8');
  const sep = text.lastIndexOf(':');
  if (text.slice(0, sep) !== scope) return undefined;
  const offset = Number(text.slice(sep + 1));
  return Number.isSafeInteger(offset) && offset > 0 ? offset : undefined;
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update('mcp-cursor\0').update(body).digest();
}
