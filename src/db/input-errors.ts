import { ApiError } from '../common/api-error.js';

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22: a value it cannot store or convert, such as
 * 0x00 in text or jsonb, an invalid escape, a number out of range) and program limits hit by a
 * value (class 54) are caused by input: a 422, never a 500. Everything else passes through.
 * Validation refuses these values first; this is the net under it, in both drivers.
 */
export function asInputError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^(22|54)[0-9A-Z]{3}$/.test(code)) return error;
  return new ApiError(
    422,
    'validation_failed',
    'Validation failed',
    'A value in the request cannot be stored (unsupported characters or out of range)',
  );
}
