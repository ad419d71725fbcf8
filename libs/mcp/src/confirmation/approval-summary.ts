import { isIdKey } from '../pages/argument-list.js';

/**
 * What an approval keeps of the arguments: enough for a person to recognise the call on the page,
 * never the arguments whole (the digest binds the exact call). Long strings, long lists, wide and
 * deep objects are cut with a visible marker, secret-looking keys are redacted, so one approval
 * costs a few kilobytes whatever was sent.
 */
export const SUMMARY_LIMITS = { string: 200, items: 20, keys: 30, depth: 4, message: 1000 } as const;

const SENSITIVE = /secret|password|passphrase|token|credential|api[_-]?key|private|value/i;
export const REDACTED = '[redacted]';

/**
 * The one redaction rule, for the page's summary and the confirmation sentence alike: a key that
 * looks like it holds a secret, unless it names an identifier (`secret_id` points at a secret, it
 * is none), which the page marks as an id.
 */
export const isSecretKey = (key: string): boolean => SENSITIVE.test(key) && !isIdKey(key);

export function summarizeArguments(args: Record<string, unknown>): Record<string, unknown> {
  return summarizeObject(args, 1);
}

/**
 * The arguments whole, with every value the summary redacts replaced by the same marker, at any
 * depth: what the host's confirmation sentence is written from, so it cannot quote a secret.
 */
export function redactSecrets(args: Record<string, unknown>): Record<string, unknown> {
  return redactObject(args);
}

function redact(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Array.isArray(value) ? value.map(redact) : redactObject(value as Record<string, unknown>);
}

function redactObject(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [key, isSecretKey(key) ? REDACTED : redact(value)]),
  );
}

function summarize(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return truncateText(value, SUMMARY_LIMITS.string);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= SUMMARY_LIMITS.depth) return Array.isArray(value) ? `[… ${value.length} items]` : '{…}';
  if (Array.isArray(value)) {
    const shown = value.slice(0, SUMMARY_LIMITS.items).map((item) => summarize(item, depth + 1));
    if (value.length > SUMMARY_LIMITS.items) shown.push(`… (+${value.length - SUMMARY_LIMITS.items} more items)`);
    return shown;
  }
  return summarizeObject(value as Record<string, unknown>, depth + 1);
}

function summarizeObject(object: Record<string, unknown>, depth: number): Record<string, unknown> {
  const keys = Object.keys(object);
  const out: Record<string, unknown> = {};
  for (const key of keys.slice(0, SUMMARY_LIMITS.keys)) {
    out[truncateText(key, SUMMARY_LIMITS.string)] = isSecretKey(key) ? REDACTED : summarize(object[key], depth);
  }
  if (keys.length > SUMMARY_LIMITS.keys) out['…'] = `+${keys.length - SUMMARY_LIMITS.keys} more keys`;
  return out;
}

/** The text cut at `limit` characters with a marker saying how much is not shown. */
export function truncateText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (+${text.length - limit} characters)`;
}
