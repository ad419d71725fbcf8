import { HttpException, Injectable, Logger } from '@nestjs/common';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import { InputRequiredSignal, MissingCapabilitySignal } from '../confirmation/inputs.js';
import { McpRejectionError } from '../http/send.js';
import { McpConfig } from '../mcp-config.js';
import type { JsonObject } from '../protocol/index.js';
import type { McpCall } from './mcp-call.js';
import { MethodInvoker } from './method-invoker.js';
import { McpToolResult } from './tool-result.js';
import { asUnavailable } from './unavailable.js';
import { StateStoreUnavailable } from '../state/mcp-state-store.js';

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
    const finish = async (value: unknown) => (asTask ? asTask(value) : this.present(tool, value));
    try {
      const prepared = await this.invoker.prepare(tool, args, call, { name: tool.name, ...(asTask ? { task: true } : {}) });
      if (!confirm) return await finish(await this.invoker.call(prepared));
      if (tool.preflight) await this.invoker.call(prepared, tool.preflight);
      return await confirm(async () => finish(await this.invoker.call(prepared)));
    } catch (error) {
      return this.failure(error, tool, call);
    }
  }

  private present(tool: RegisteredTool, value: unknown): JsonObject {
    if (value instanceof McpToolResult) return value.toResult();
    const presented = this.config.options.presentResult ? this.config.options.presentResult(value) : value;
    const content: unknown[] = presented === undefined ? [] : [{ type: 'text', text: JSON.stringify(presented) }];
    if (tool.resourceLinks) content.push(...tool.resourceLinks(value));
    return { content };
  }

  private failure(error: unknown, tool: RegisteredTool, call: McpCall): JsonObject {
    if (error instanceof McpRejectionError || error instanceof InputRequiredSignal || error instanceof MissingCapabilitySignal || error instanceof StateStoreUnavailable) throw error;
    const down = asUnavailable(error, call.id);
    if (down) throw down;
    if (error instanceof HttpException && error.getStatus() < 500) {
      const body = this.config.options.errorBody ? this.config.options.errorBody(error) : error.getResponse();
      return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
    }
    this.logger.error(
      `tool ${tool.name} failed (request ${call.requestId}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    const body = {
      error: {
        code: 'internal_error',
        message: `The tool failed unexpectedly. Quote request id ${call.requestId} to the operator.`,
        request_id: call.requestId,
      },
    };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
  }
}
