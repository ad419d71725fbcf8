import { Injectable, Logger } from '@nestjs/common';
import { answerSiteOf, type McpCall } from '../call/mcp-call.js';
import { OutputSchemaMismatch, carriesStructuredContent, presentedContent } from './structured-result.js';
import { McpToolResult } from '../call/tool-result.js';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import { answerOf, rethrowable } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import { MethodInvoker } from './method-invoker.js';
import { describeError } from '../protocol/index.js';

/**
 * Runs one tool and turns the outcome into a CallToolResult. Errors the caller can act on (4xx)
 * come back as `isError` with the REST API's own error body; anything else is logged and masked.
 */
@Injectable()
export class ToolInvoker {
  private readonly logger = new Logger('McpTools');

  constructor(
    private readonly config: McpConfig,
    private readonly invoker: MethodInvoker,
  ) {}

  /**
   * `confirm` wraps the run of a destructive tool; it is reached only once the arguments passed
   * validation and the tool's preflight, so a call that would be refused never asks anyone.
   */
  async invoke(
    tool: RegisteredTool,
    args: JsonObject,
    call: McpCall,
    confirm?: (run: () => Promise<JsonObject>) => Promise<JsonObject>,
    asTask?: (value: unknown) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    // `asTask`: the call is answered with a task made from the method's value (Tasks extension);
    // a refusal by the method (4xx) still answers at once, and no task is made.
    const finish = (value: unknown): JsonObject | Promise<JsonObject> =>
      asTask ? asTask(value) : this.present(tool, value, call);
    try {
      const prepared = await this.invoker.prepare(
        tool,
        args,
        call,
        asTask ? { name: tool.name, task: true } : { name: tool.name },
      );
      if (!confirm) {
        // A method that answers synchronously is presented in the same tick (no await of a plain value).
        const value = this.invoker.call(prepared);
        const result = finish(isThenable(value) ? await value : value);
        return result instanceof Promise ? await result : result;
      }
      if (tool.preflight) await this.invoker.call(prepared, tool.preflight);
      return await confirm(async () => finish(await this.invoker.call(prepared)));
    } catch (error) {
      return this.failure(error, tool, call);
    }
  }

  private present(tool: RegisteredTool, value: unknown, call: McpCall): JsonObject {
    if (value instanceof McpToolResult) return this.rich(tool, value, call);
    const { content, structuredContent } = presentedContent(tool, this.config.presentResult(value), call.era);
    if (tool.resourceLinks) content.push(...tool.resourceLinks(value));
    return structuredContent ? { content, structuredContent } : { content };
  }

  /** A method's own McpToolResult: its structuredContent is held to the schema too, and dropped where the era has none. */
  private rich(tool: RegisteredTool, value: McpToolResult, call: McpCall): JsonObject {
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

  /** A tool's error the caller can act on is a result with `isError`; the rest is answered by the dispatcher (errors.ts). */
  private failure(error: unknown, tool: RegisteredTool, call: McpCall): JsonObject {
    const answer = answerOf(error, answerSiteOf(call, 'tool', this.config));
    if (answer.kind !== 'tool_error') throw rethrowable(answer, error);
    if (answer.cause !== undefined) {
      const cause = answer.cause;
      this.logger.error(`tool ${tool.name} failed (request ${call.requestId}): ${describeError(cause)}`);
    }
    return { content: [{ type: 'text', text: JSON.stringify(answer.body) }], isError: true };
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
