import { HttpException, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { McpInputRound } from '../call/inputs.js';
import type { McpPrincipal } from '../auth/principal.js';
import { McpToolRegistry, type RegisteredTool } from '../discovery/tool-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import {
  createTaskResult,
  declaresTasks,
  detailedTask,
  invalidParams,
  type JsonObject,
  readTaskParams,
  TASK_ACK,
  TaskIdBinder,
  type TaskRef,
  taskNotFound,
  tasksCapabilityRequired,
  type TaskState,
} from '../protocol/index.js';
import type { McpTaskCaller, McpTaskSource } from '../tasks/task-source.js';
import { AccessPolicy } from '../access/access-policy.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { insufficientScope } from './scope-challenge.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The Tasks extension (SEP-2663): `tasks/get`, `tasks/update` and `tasks/cancel` (2026 era, only
 * when the app gives a task source), and the making of a task at the end of a `tools/call`.
 * Every task request passes the same door as the call that made the task: the app's guards
 * (authentication, audience) before the ladder, then here the id's binding to this caller and the
 * tool's access decision. Whatever fails, an id that is not the caller's reads as unknown.
 */
@Injectable()
export class TaskHandler implements OnApplicationBootstrap {
  private readonly ids: TaskIdBinder;

  constructor(
    private readonly config: McpConfig,
    private readonly registry: McpToolRegistry,
    private readonly access: AccessPolicy,
  ) {
    this.ids = new TaskIdBinder(config.stateKey);
  }

  private get source(): McpTaskSource | undefined {
    return this.config.tasks;
  }

  /** A tool that only works as a task cannot be served without somewhere to keep tasks. */
  onApplicationBootstrap(): void {
    if (this.source) return;
    const required = this.registry.all().filter((t) => t.task === 'required');
    if (required.length) {
      throw new Error(
        `McpModule: ${required.map((t) => `${t.name} on ${t.location}`).join(', ')} answer(s) only with a task, but no \`tasks\` source is given`,
      );
    }
  }

  handlers(): McpMethodHandler[] {
    if (!this.source) return [];
    return ['tasks/get', 'tasks/update', 'tasks/cancel'].map((method) => ({
      method,
      eras: ['modern'] as const,
      handle: (call: McpCall) => this.handle(call),
    }));
  }

  /**
   * How this call of `tool` is answered: `task` when the request itself declares the extension
   * (tasks.md: per request, regardless of earlier ones); -32021 before anything runs when the tool
   * needs a task and the request cannot take one; else `sync`, today's result.
   */
  modeOf(tool: RegisteredTool, call: McpCall): 'task' | 'sync' {
    if (!tool.task || !this.source) return 'sync';
    if (call.era.era === 'modern' && declaresTasks(call.era.clientCapabilities)) return 'task';
    if (tool.task === 'required')
      throw new McpRejectionError(tasksCapabilityRequired(call.id, `${tool.name} answers only with a task`));
    return 'sync';
  }

  /** Makes the task from what the tool's method returned; durable once the source resolves. */
  async create(tool: RegisteredTool, args: JsonObject, value: unknown, call: McpCall): Promise<JsonObject> {
    const caller = callerOf(call);
    const state = await this.source!.create({ tool: tool.name, arguments: args, value, caller });
    return createTaskResult(
      this.ids.mint(this.config.principalKey(call.principal), { tool: tool.name, id: state.id }),
      state,
    );
  }

  private async handle(call: McpCall): Promise<JsonObject> {
    if (call.era.era !== 'modern' || !declaresTasks(call.era.clientCapabilities)) {
      throw new McpRejectionError(
        tasksCapabilityRequired(call.id, `${call.method} needs the extension declared on the request`),
      );
    }
    const params = readTaskParams(call.method, call.params);
    if (typeof params === 'string') throw new McpRejectionError(invalidParams(call.id, params));
    const ref = this.authorize(call, params.taskId);
    const caller = callerOf(call);
    const state = await this.fromSource(call, () => this.source!.get(ref, caller));
    if (!state) throw new McpRejectionError(taskNotFound(call.id));
    if (call.method === 'tasks/get') return detailedTask(params.taskId, state);
    if (call.method === 'tasks/update') {
      await this.update(call, ref, caller, state, params.inputResponses!);
    } else if (!TERMINAL.has(state.status)) {
      // Cancelling a finished task is acknowledged and changes nothing (idempotent).
      await this.fromSource(call, () => this.source!.cancel(ref, caller));
    }
    return { ...TASK_ACK };
  }

  /** Only answers to keys outstanding right now reach the app (tasks.md §Task Update Requests: others are ignored). */
  private async update(
    call: McpCall,
    ref: TaskRef,
    caller: McpTaskCaller,
    state: TaskState,
    responses: JsonObject,
  ): Promise<void> {
    if (state.status !== 'input_required' || !state.inputRequests) return;
    const keys = Object.keys(responses).filter((key) => Object.hasOwn(state.inputRequests!, key));
    if (keys.length === 0) return;
    const answered = Object.fromEntries(keys.map((key) => [key, responses[key]]));
    const capabilities = call.era.era === 'modern' ? call.era.clientCapabilities : {};
    await this.fromSource(call, () =>
      this.source!.update(ref, caller, new McpInputRound('modern', capabilities, answered, undefined), keys),
    );
  }

  /** The tool behind the id, if this caller may use it; an id not minted for this caller is unknown. */
  private authorize(call: McpCall, taskId: string): TaskRef {
    const ref = this.ids.open(this.config.principalKey(call.principal), taskId);
    const tool = ref && this.registry.get(ref.tool);
    if (!ref || !tool?.task) throw new McpRejectionError(taskNotFound(call.id));
    const decision = this.access.decide(call.principal, {
      kind: 'tool',
      name: tool.name,
      scopes: tool.scopes,
      roles: tool.roles,
    });
    if (decision === 'hidden') throw new McpRejectionError(taskNotFound(call.id));
    if (decision === 'missing_scope')
      throw new McpRejectionError(insufficientScope(this.config, call.req, call.id, tool.name, tool.scopes));
    return ref;
  }

  /**
   * The app's refusals become JSON-RPC errors: a 404 is an unknown task, another 4xx invalid params
   * carrying the app's error body, a 503 the whole request's 503; anything else is an internal error.
   */
  private async fromSource<T>(call: McpCall, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      // A 404 of the source is an unknown task; every other refusal is mapped by the dispatcher
      // like any method's (errors.ts: a 4xx is invalid params with the app's body, a 503 the request's 503).
      if (error instanceof HttpException && error.getStatus() === 404)
        throw new McpRejectionError(taskNotFound(call.id));
      throw error;
    }
  }
}

function callerOf(call: McpCall): McpTaskCaller {
  return new TaskCaller(call);
}

/** A class rather than a literal with a getter, for the reason DispatchedCall gives: the id is read on first use. */
class TaskCaller implements McpTaskCaller {
  declare readonly principal?: McpPrincipal;
  readonly #call: McpCall;

  constructor(call: McpCall) {
    this.#call = call;
    if (call.principal) this.principal = call.principal;
  }

  get requestId(): string {
    return this.#call.requestId;
  }
}
