import { HttpException } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';

/**
 * The one line an operator reads when the app fails to start. A refusal thrown as an API error
 * (a dependency timing out during the schema's creation answers `database_unavailable`, as requests
 * do) has a generic message ("Api Error"); its body says what failed.
 */
export function startupFailureText(error: unknown): string {
  if (error instanceof HttpException) {
    const item = firstErrorItem(error.getResponse());
    if (item) return `${item.code}: ${item.title}${item.detail ? ` (${item.detail})` : ''}`;
  }
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : describeValue(error);
}

function firstErrorItem(body: unknown): { code: string; title: string; detail?: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const errors = (body as { errors?: unknown }).errors;
  const item: unknown = Array.isArray(errors) ? errors[0] : undefined;
  if (typeof item !== 'object' || item === null) return undefined;
  const { code, title, detail } = item as Record<string, unknown>;
  if (typeof code !== 'string' || typeof title !== 'string') return undefined;
  return { code, title, ...(typeof detail === 'string' ? { detail } : {}) };
}
