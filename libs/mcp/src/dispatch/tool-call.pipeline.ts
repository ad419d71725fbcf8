import type { McpInputRound } from '../call/inputs.js';
import type { McpCall } from '../call/mcp-call.js';
import type { RegisteredTool } from '../discovery/tool-registry.js';
import type { JsonObject } from '../protocol/index.js';
import type { AccessDecision } from '../access/access-policy.js';
import type { PreparedCall } from './method-invoker.js';

/**
 * A `tools/call`, top to bottom: the steps it passes, in this order (ToolInvoker implements one
 * method per step; a step moved here moves there, and tool-call.pipeline.spec.ts pins the order).
 * `takes` and `gives` name the fields of the ToolCall a step reads and writes. A step that gives
 * `result` answers the call: the steps after it do not run (a confirmation declined, a task made).
 *
 * `answeredAt` is where what a step throws becomes an answer (errors.ts): `method` by the
 * dispatcher, like any method's refusal; `tool` by the tool's own site, where an error the caller
 * can act on is an `isError` result (ToolInvoker.failure) and anything else goes on to the dispatcher.
 */
export const TOOL_CALL = [
  // Unknown, or hidden by a role (a role cannot be stepped up): -32602 "Unknown tool".
  { name: 'resolve', takes: 'params.name', gives: 'tool, access', answeredAt: 'method' },
  // A scope is missing: 403 with the step-up challenge.
  { name: 'authorize', takes: 'access', gives: '—', answeredAt: 'method' },
  // `arguments`, or a gateway's `payload` in its place (seed 004); not an object: -32602.
  { name: 'arguments', takes: 'params', gives: 'args', answeredAt: 'method' },
  // Task or sync, decided before anything runs: -32021 when a task-only tool meets a client without the extension.
  { name: 'mode', takes: 'tool', gives: 'task', answeredAt: 'method' },
  // The MRTR input round (confirmation/mrtr.service.ts): a returned requestState checked, inputResponses read.
  { name: 'round', takes: 'args', gives: 'inputs', answeredAt: 'method' },
  // Arguments validated with the app's ValidationPipe settings and bound onto the method's parameters.
  { name: 'bind', takes: 'args, inputs, task', gives: 'prepared', answeredAt: 'tool' },
  // Destructive tools only: the tool's preflight, so that a call that would be refused never asks anyone.
  { name: 'preflight', takes: 'prepared', gives: '—', answeredAt: 'tool' },
  // Destructive tools only: the person's confirmation (confirmation/destructive-gate.ts).
  { name: 'confirm', takes: 'args, inputs', gives: 'result when not confirmed', answeredAt: 'tool' },
  { name: 'invoke', takes: 'prepared', gives: 'value', answeredAt: 'tool' },
  // Task mode: the task made from the method's value, once every input round completed (tasks.md §Task Creation).
  { name: 'task', takes: 'value', gives: 'result', answeredAt: 'tool' },
  // The CallToolResult: text, structuredContent held to the outputSchema, resource links.
  { name: 'present', takes: 'value', gives: 'result', answeredAt: 'tool' },
] as const satisfies readonly ToolCallStep[];

export type ToolCallStepName = (typeof TOOL_CALL)[number]['name'];

export interface ToolCallStep {
  readonly name: string;
  readonly takes: string;
  readonly gives: string;
  readonly answeredAt: 'method' | 'tool';
}

/** One step's unit: reads and writes its ToolCall, and returns a promise only when it has to wait. */
export type ToolCallUnit = (call: ToolCall) => void | Promise<void>;

/** What runs the steps: one unit per name of TOOL_CALL. */
export type ToolCallSteps = { readonly [name in ToolCallStepName]: ToolCallUnit };

/**
 * One `tools/call` on its way through TOOL_CALL: the request, and what each step gave. One object
 * per call, every field set here so that all calls share one shape.
 */
export class ToolCall {
  tool: RegisteredTool = undefined!;
  access: AccessDecision = 'hidden';
  args: JsonObject = undefined!;
  task = false;
  inputs: McpInputRound = undefined!;
  prepared: PreparedCall = undefined!;
  value: unknown = undefined;
  result: JsonObject | undefined = undefined;

  constructor(readonly call: McpCall) {}
}

/**
 * Runs TOOL_CALL's steps in order. The `method` steps come first and throw to the dispatcher; the
 * `tool` steps run under the tool site's one catch (`failure`). A step that waits is awaited; the
 * others run in the same tick, so a method that answers synchronously is presented at once.
 */
export class ToolCallPipeline {
  private readonly admission: readonly ToolCallUnit[];
  private readonly execution: readonly ToolCallUnit[];

  constructor(
    steps: ToolCallSteps,
    private readonly failure: (thrown: unknown, call: ToolCall) => JsonObject,
  ) {
    const first = TOOL_CALL.findIndex((step) => step.answeredAt === 'tool');
    if (TOOL_CALL.slice(first).some((step) => step.answeredAt !== 'tool'))
      throw new Error('TOOL_CALL: a step answered by the dispatcher follows one answered at the tool');
    const units = TOOL_CALL.map((step) => steps[step.name].bind(steps) as ToolCallUnit);
    this.admission = units.slice(0, first);
    this.execution = units.slice(first);
  }

  /**
   * The call's result, or a promise of it only when a step had to wait: a call whose steps all
   * answer in the same tick (a synchronous method, validated in the same tick) is answered without
   * a promise, so the dispatcher and the endpoint await nothing either (bench/RESULTS.md, issue 32,
   * sixth pass). What a `method` step throws is thrown (or rejected) as before; what a `tool` step
   * throws goes to `failure` either way.
   */
  run(call: McpCall): JsonObject | Promise<JsonObject> {
    const state = new ToolCall(call);
    const { admission } = this;
    for (let i = 0; i < admission.length; i++) {
      const waiting = admission[i]!(state);
      if (waiting) return this.admitted(state, i, waiting);
    }
    return this.execute(state);
  }

  /** The rest of the admission steps once step `i` has waited, then the execution. */
  private async admitted(state: ToolCall, i: number, waiting: PromiseLike<void>): Promise<JsonObject> {
    const { admission } = this;
    await waiting;
    for (let j = i + 1; j < admission.length; j++) {
      const next = admission[j]!(state);
      if (next) await next;
    }
    return this.execute(state);
  }

  private execute(state: ToolCall): JsonObject | Promise<JsonObject> {
    const { execution } = this;
    try {
      for (let i = 0; i < execution.length && state.result === undefined; i++) {
        const waiting = execution[i]!(state);
        if (waiting) return this.executed(state, i, waiting);
      }
    } catch (thrown) {
      return this.failure(thrown, state);
    }
    return state.result!;
  }

  /** The rest of the execution steps once step `i` has waited, under the same catch. */
  private async executed(state: ToolCall, i: number, waiting: PromiseLike<void>): Promise<JsonObject> {
    const { execution } = this;
    try {
      await waiting;
      for (let j = i + 1; j < execution.length && state.result === undefined; j++) {
        const next = execution[j]!(state);
        if (next) await next;
      }
    } catch (thrown) {
      return this.failure(thrown, state);
    }
    return state.result!;
  }
}
