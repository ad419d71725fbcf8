import type { McpCall } from '../call/mcp-call.js';
import { McpToolResult } from '../call/tool-result.js';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import type { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import { carriesStructuredContent, OutputSchemaMismatch, presentedContent } from './structured-result.js';

/** The CallToolResult of a method's value (the `present` step of TOOL_CALL). */
export function presentToolResult(tool: RegisteredTool, value: unknown, call: McpCall, config: McpConfig): JsonObject {
  if (value instanceof McpToolResult) return richResult(tool, value, call);
  const { content, structuredContent } = presentedContent(tool, config.presentResult(value), call.era);
  if (tool.resourceLinks) content.push(...tool.resourceLinks(value));
  return structuredContent ? { content, structuredContent } : { content };
}

/** A method's own McpToolResult: its structuredContent is held to the schema too, and dropped where the era has none. */
function richResult(tool: RegisteredTool, value: McpToolResult, call: McpCall): JsonObject {
  const result = value.toResult();
  const structured = carriesStructuredContent(call.era);
  if (result.structuredContent === undefined) {
    // A tool that lists an outputSchema owes structuredContent on every success (clients require it).
    if (tool.output && structured && !result.isError)
      throw new OutputSchemaMismatch(tool.name, 'the result has no structuredContent');
    return result;
  }
  if (!structured) {
    delete result.structuredContent;
    return result;
  }
  const mismatch = result.isError ? undefined : tool.output?.check(result.structuredContent);
  if (mismatch !== undefined) throw new OutputSchemaMismatch(tool.name, mismatch);
  return result;
}
