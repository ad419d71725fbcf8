/** Timestamps as ISO strings, whatever the driver returned. */
export function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export interface Envelope<T> {
  data: T;
}

export interface ListEnvelope<T> {
  data: T[];
  meta: { next_cursor: string | null; limit: number };
}
