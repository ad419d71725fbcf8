/** MCP content items a tool may return (2025-06-18 and 2026-07-28 tools). */
export type McpContent =
  | { type: 'text'; text: string; annotations?: Record<string, unknown>; _meta?: Record<string, unknown> }
  | { type: 'image'; data: string; mimeType: string; annotations?: Record<string, unknown> }
  | { type: 'audio'; data: string; mimeType: string; annotations?: Record<string, unknown> }
  | {
      type: 'resource';
      resource: { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> };
      annotations?: Record<string, unknown>;
    }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      annotations?: Record<string, unknown>;
    };

/**
 * A rich tool result. A method that returns anything else has its value serialized as JSON into
 * one text item — the same JSON its REST route returns.
 */
export class McpToolResult {
  constructor(
    readonly content: readonly McpContent[],
    readonly options: { structuredContent?: Record<string, unknown>; isError?: boolean } = {},
  ) {}

  static text(text: string): McpToolResult {
    return new McpToolResult([{ type: 'text', text }]);
  }

  static json(value: unknown, extra: readonly McpContent[] = []): McpToolResult {
    return new McpToolResult([{ type: 'text', text: JSON.stringify(value) }, ...extra]);
  }

  static error(text: string): McpToolResult {
    return new McpToolResult([{ type: 'text', text }], { isError: true });
  }

  toResult(): Record<string, unknown> {
    return {
      content: this.content,
      ...(this.options.structuredContent ? { structuredContent: this.options.structuredContent } : {}),
      ...(this.options.isError ? { isError: true } : {}),
    };
  }
}
