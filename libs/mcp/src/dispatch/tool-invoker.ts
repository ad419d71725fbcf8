import { Injectable, Logger } from '@nestjs/common';
import { McpInputRound } from '../call/inputs.js';
import { answerSiteOf, type McpCall } from '../call/mcp-call.js';
import { DestructiveGate } from '../confirmation/destructive-gate.js';
import { MrtrService } from '../confirmation/mrtr.service.js';
import { McpToolRegistry, type RegisteredTool } from '../discovery/tool-registry.js';
import { answerOf, McpRejectionError, rethrowable } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { describeError, invalidParams, isPlainObject, type JsonObject, stringParam } from '../protocol/index.js';
import { AccessPolicy } from '../access/access-policy.js';
import { isThenable } from './thenable.js';
import { MethodInvoker, type PreparedCall } from './method-invoker.js';
import { presentToolResult } from './present-tool-result.js';
import { insufficientScope } from './scope-challenge.js';
import { TaskHandler } from './task.handler.js';
import { type ToolCall, ToolCallPipeline, type ToolCallSteps } from './tool-call.pipeline.js';

/**
 * Serves `tools/call`: one method per step of TOOL_CALL (tool-call.pipeline.ts), run in that order
 * by the pipeline, and the tool site's one answer to what they throw. Errors the caller can act on
 * (4xx) come back as `isError` with the REST API's own error body; anything else is logged and masked.
 */
@Injectable()
export class ToolInvoker implements ToolCallSteps {
  private readonly logger = new Logger('McpTools');
  private readonly pipeline = new ToolCallPipeline(this, (thrown, c) => this.failure(thrown, c));

  constructor(
    private readonly config: McpConfig,
    private readonly methods: MethodInvoker,
    private readonly registry: McpToolRegistry,
    private readonly access: AccessPolicy,
    private readonly mrtr: MrtrService,
    private readonly gate: DestructiveGate,
    private readonly tasks: TaskHandler,
  ) {}

  /** A `tools/call`, through every step of TOOL_CALL. */
  call(call: McpCall): JsonObject | Promise<JsonObject> {
    return this.pipeline.run(call);
  }

  resolve(c: ToolCall): void {
    const { call } = c;
    const name = stringParam(call.params, 'name', () =>
      invalidParams(call.id, 'Invalid params: "name" must be a string'),
    );
    const tool = this.registry.get(name);
    const access = tool ? this.access.decide(call.principal, requirement(tool)) : 'hidden';
    // A role cannot be stepped up, so a role-hidden tool is indistinguishable from an unknown one.
    if (!tool || access === 'hidden') throw new McpRejectionError(invalidParams(call.id, `Unknown tool: ${name}`));
    c.tool = tool;
    c.access = access;
  }

  authorize(c: ToolCall): void {
    const { call, tool } = c;
    if (c.access === 'missing_scope')
      throw new McpRejectionError(insufficientScope(this.config, call.req, call.id, tool.name, tool.scopes));
  }

  arguments(c: ToolCall): void {
    const { params } = c.call;
    // Gateway compatibility (seed 004): `payload` stands in for absent `arguments`.
    const args =
      params.arguments !== undefined ? params.arguments : isPlainObject(params.payload) ? params.payload : {};
    if (!isPlainObject(args))
      throw new McpRejectionError(invalidParams(c.call.id, 'Invalid params: "arguments" must be an object'));
    c.args = args;
  }

  mode(c: ToolCall): void {
    c.task = this.tasks.modeOf(c.tool, c.call) === 'task';
  }

  round(c: ToolCall): void | Promise<void> {
    const opened = this.mrtr.open(c.call, c.tool.name, c.args);
    if (opened instanceof McpInputRound) c.inputs = opened;
    else return this.resumed(c, opened);
  }

  bind(c: ToolCall): void | Promise<void> {
    const { tool } = c;
    const context = c.task ? { name: tool.name, task: true } : { name: tool.name };
    const prepared = this.methods.prepare(tool, c.args, c.call, context, c.inputs);
    // Validated in the same tick (McpValidationPipe) and a singleton: no await between the steps.
    if (isThenable(prepared)) return this.prepared(c, prepared);
    c.prepared = prepared;
  }

  preflight(c: ToolCall): void | Promise<void> {
    const { tool } = c;
    if (tool.annotations.destructiveHint && tool.preflight) return this.preflighted(c, tool.preflight);
  }

  confirm(c: ToolCall): void | Promise<void> {
    if (c.tool.annotations.destructiveHint) return this.confirmed(c);
  }

  invoke(c: ToolCall): void | Promise<void> {
    const value = this.methods.call(c.prepared);
    // A method that answers synchronously is presented in the same tick (no await of a plain value).
    if (isThenable(value)) return this.settled(c, value);
    c.value = value;
  }

  task(c: ToolCall): void | Promise<void> {
    // The call is answered with a task made from the method's value (Tasks extension).
    if (c.task) return this.madeTask(c);
  }

  present(c: ToolCall): void {
    c.result = presentToolResult(c.tool, c.value, c.call, this.config);
  }

  private async prepared(c: ToolCall, prepared: PromiseLike<PreparedCall>): Promise<void> {
    c.prepared = await prepared;
  }

  private async resumed(c: ToolCall, opened: Promise<McpInputRound>): Promise<void> {
    c.inputs = await opened;
  }

  private async preflighted(c: ToolCall, preflight: string): Promise<void> {
    await this.methods.call(c.prepared, preflight);
  }

  private async settled(c: ToolCall, value: PromiseLike<unknown>): Promise<void> {
    c.value = await value;
  }

  private async confirmed(c: ToolCall): Promise<void> {
    const refusal = await this.gate.guard(c);
    if (refusal) c.result = refusal;
  }

  private async madeTask(c: ToolCall): Promise<void> {
    c.result = await this.tasks.create(c.tool, c.args, c.value, c.call);
  }

  /** A tool's error the caller can act on is a result with `isError`; the rest is answered by the dispatcher (errors.ts). */
  private failure(error: unknown, c: ToolCall): JsonObject {
    const { tool, call } = c;
    const answer = answerOf(error, answerSiteOf(call, 'tool', this.config));
    if (answer.kind !== 'tool_error') throw rethrowable(answer, error);
    if (answer.cause !== undefined) {
      const cause = answer.cause;
      this.logger.error(`tool ${tool.name} failed (request ${call.requestId}): ${describeError(cause)}`);
    }
    return { content: [{ type: 'text', text: JSON.stringify(answer.body) }], isError: true };
  }
}

function requirement(tool: RegisteredTool) {
  return { kind: 'tool' as const, name: tool.name, scopes: tool.scopes, roles: tool.roles };
}
