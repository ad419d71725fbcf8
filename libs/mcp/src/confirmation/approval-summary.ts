/**
 * What an approval keeps of the arguments: enough for a person to recognise the call on the page,
 * never the arguments whole (the digest binds the exact call). Long strings, long lists, wide and
 * deep objects are cut with a visible marker, secret-looking keys are redacted, so one approval
 * costs a few kilobytes whatever was sent.
 */
export const SUMMARY_LIMITS = { string: 200, items: 20, keys: 30, depth: 4, message: 1000 } as const;

const SENSITIVE = /secret|password|passphrase|token|credential|api[_-]?key|private|value/i;

export function summarizeArguments(args: Record<string, unknown>): Record<string, unknown> {
  return summarizeObject(args, 1);
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
    out[truncateText(key, SUMMARY_LIMITS.string)] = SENSITIVE.test(key) ? '[redacted]' : summarize(object[key], depth);
  }
  if (keys.length > SUMMARY_LIMITS.keys) out['…'] = `+${keys.length - SUMMARY_LIMITS.keys} more keys`;
  return out;
}

/** The text cut at `limit` characters with a marker saying how much is not shown. */
export function truncateText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (+${text.length - limit} characters)`;
}
