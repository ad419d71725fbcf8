import { type McpArgOptions, type McpToolAnnotations } from '@kobana/nest-mcp';
import { IsString, MaxLength, MinLength } from 'class-validator';

/** `idempotency_key`: the tool-side twin of the REST `X-Idempotency-Key` header. */
export const IDEMPOTENCY_KEY: McpArgOptions = {
  required: false,
  description:
    'Makes the write safe to retry: reuse the same key when you retry; a different write needs a new key (≤255 chars).',
  validators: [IsString(), MinLength(1), MaxLength(255)],
};

/** An id argument: a string; a malformed or foreign id is simply not found, as on the REST route. */
export function idArg(what: string): McpArgOptions {
  return { description: `The ${what} id`, validators: [IsString(), MaxLength(64)] };
}

/** Tool hints, exactly as docs/kadu.md's catalogue says; a tool only calls Kadu's API, so never open-world. */
export function hints(kind: 'read' | 'write' | 'destructive', idempotent: boolean): McpToolAnnotations {
  return {
    readOnlyHint: kind === 'read',
    destructiveHint: kind === 'destructive',
    idempotentHint: idempotent,
    openWorldHint: false,
  };
}
