/**
 * Header value decoding for Mcp-Name and Mcp-Param-* (2026-07-28 streamable-http §Value Encoding).
 * `=?base64?…?=` wraps the Base64 of the UTF-8 bytes. Node's Buffer decoder is lenient (it accepts
 * missing padding and skips foreign characters), so the alphabet and padding are checked first and
 * the bytes are decoded as fatal UTF-8: a malformed sentinel is a mismatch, never a guess.
 */
const PREFIX = '=?base64?';
const SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export type DecodedHeader = { ok: true; value: string } | { ok: false; reason: string };

export function decodeHeaderValue(raw: string): DecodedHeader {
  const value = raw.trim();
  if (!(value.startsWith(PREFIX) && value.endsWith(SUFFIX) && value.length >= PREFIX.length + SUFFIX.length)) {
    return { ok: true, value };
  }
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return { ok: false, reason: 'invalid base64 in =?base64?…?= value' };
  try {
    return { ok: true, value: utf8.decode(Buffer.from(payload, 'base64')) };
  } catch {
    return { ok: false, reason: 'base64 value is not valid UTF-8' };
  }
}

/** Encodes a value for a header the way a client must (used by the testing helpers). */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value);
  if (plain && !(value.startsWith(PREFIX) && value.endsWith(SUFFIX))) return value;
  return `${PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SUFFIX}`;
}
