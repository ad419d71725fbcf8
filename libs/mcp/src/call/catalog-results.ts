/** One item of `resources/read` contents. */
export interface McpResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

/** Explicit resource contents (several items, or a blob with its own mime type). */
export class McpResourceResult {
  constructor(readonly contents: readonly Partial<McpResourceContent>[]) {}
}

export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: Record<string, unknown> & { type: string };
}

/** An explicit prompt result with a description. */
export class McpPromptResult {
  constructor(
    readonly messages: readonly McpPromptMessage[],
    readonly description?: string,
  ) {}
}

/** A method's return value as `resources/read` contents: never empty (an empty read would hide a missing resource). */
export function toResourceContents(uri: string, mimeType: string | undefined, value: unknown): McpResourceContent[] {
  if (value instanceof McpResourceResult) return value.contents.map((c) => ({ uri, ...c }) as McpResourceContent);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    return [{ uri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(value).toString('base64') }];
  }
  if (typeof value === 'string') return [{ uri, mimeType: mimeType ?? 'text/plain', text: value }];
  return [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value ?? null) }];
}

export function toPromptResult(value: unknown, description?: string): Record<string, unknown> {
  if (value instanceof McpPromptResult) {
    return {
      ...((value.description ?? description) ? { description: value.description ?? description } : {}),
      messages: value.messages,
    };
  }
  const messages = typeof value === 'string' ? [{ role: 'user', content: { type: 'text', text: value } }] : value;
  return { ...(description ? { description } : {}), messages };
}
