import { createHmac, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from './constants.js';
import { stringField } from './client-values.js';
import { isPlainObject, type JsonObject } from './jsonrpc.js';
import { invalidParams, type JsonRpcId, reject, type Rejection } from './rejection.js';

/**
 * The Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`, specification/draft/tasks.md of
 * modelcontextprotocol/experimental-ext-tasks): the pure parts — wire shapes, params checks and
 * the binding of task ids to their caller. No framework here.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** A task as the app's store describes it (its own id; the module mints the public `taskId`). */
export interface TaskState {
  readonly id: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: Date | string;
  readonly lastUpdatedAt: Date | string;
  /** How long after creation the task stays readable; null: as long as the store keeps it. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** `completed`: the CallToolResult (business failures included, with `isError: true`). */
  readonly result?: JsonObject;
  /** `failed`: the JSON-RPC error the call ended with. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** `input_required`: the outstanding requests, keyed by ids never reused within the task. */
  readonly inputRequests?: Readonly<Record<string, JsonObject>>;
}

/** Whether this request's own capabilities declare the extension (tasks.md §Capability Negotiation: per request). */
export function declaresTasks(clientCapabilities: JsonObject | undefined): boolean {
  const extensions = clientCapabilities?.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension (tasks.md §Capability Negotiation, §Protocol Errors). */
export function tasksCapabilityRequired(id: JsonRpcId | null, what: string): Rejection {
  return reject(
    'missing_client_capability',
    400,
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${TASKS_EXTENSION} (${what})`,
    id,
    {
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    },
  );
}

/** -32602 for a task id that is unknown, expired, forged, or someone else's: all read the same. */
export function taskNotFound(id: JsonRpcId | null): Rejection {
  return invalidParams(id, 'Failed to retrieve task: Task not found');
}

export interface TaskParams {
  readonly taskId: string;
  /** tasks/update only. */
  readonly inputResponses?: JsonObject;
}

/** Reads `tasks/get`, `tasks/update` and `tasks/cancel` params; a string is the reason they are invalid. */
export function readTaskParams(method: string, params: JsonObject): TaskParams | string {
  const taskId = stringField(params, 'taskId');
  if (taskId === undefined || taskId === '') return 'Invalid params: "taskId" must be a non-empty string';
  if (method !== 'tasks/update') return { taskId };
  if (!isPlainObject(params.inputResponses)) return 'Invalid params: "inputResponses" must be an object';
  return { taskId, inputResponses: params.inputResponses };
}

function iso(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`task timestamp is not a date: ${String(value)}`);
  return date.toISOString();
}

function positiveInteger(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`task ${name} must be a positive number of milliseconds`);
  // tasks-wire-fields: integer milliseconds only.
  return Math.max(1, Math.round(value));
}

/** The `Task` fields every shape carries, with the public id. Throws on a state the app got wrong. */
function taskFields(taskId: string, state: TaskState): JsonObject {
  if (!STATUSES.includes(state.status))
    throw new Error(`task status '${String(state.status)}' is not one of ${STATUSES.join(', ')}`);
  const ttlMs = state.ttlMs === null ? null : positiveInteger(state.ttlMs, 'ttlMs');
  if (ttlMs === undefined) throw new Error('task ttlMs is required (null for unlimited)');
  const pollIntervalMs = positiveInteger(state.pollIntervalMs, 'pollIntervalMs');
  return {
    taskId,
    status: state.status,
    ...(state.statusMessage ? { statusMessage: state.statusMessage } : {}),
    createdAt: iso(state.createdAt),
    lastUpdatedAt: iso(state.lastUpdatedAt),
    ttlMs,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
  };
}

/** tools/call answered with a task: flat `Result & Task`, never `result`, `error`, `inputRequests` or `requestState` (tasks.md §Task Creation). */
export function createTaskResult(taskId: string, state: TaskState): JsonObject {
  return { resultType: 'task', ...taskFields(taskId, state) };
}

/**
 * The params of `notifications/tasks` (on a listen stream following the task): the task's `Task`
 * fields as `tasks/get` shows them, without the result or the input requests (the client reads
 * those with `tasks/get` when the status tells it to).
 */
export function taskStatusParams(taskId: string, state: TaskState): JsonObject {
  return taskFields(taskId, state);
}

/** tasks/get: `resultType: "complete"` and the DetailedTask of the status (tasks.md §Task Polling). */
export function detailedTask(taskId: string, state: TaskState): JsonObject {
  const fields = taskFields(taskId, state);
  switch (state.status) {
    case 'completed':
      if (!isPlainObject(state.result) || !Array.isArray(state.result.content))
        throw new Error('a completed task needs its CallToolResult');
      return { resultType: 'complete', ...fields, result: state.result };
    case 'failed':
      if (!state.error || typeof state.error.code !== 'number' || typeof state.error.message !== 'string')
        throw new Error('a failed task needs its JSON-RPC error');
      return { resultType: 'complete', ...fields, error: { ...state.error } };
    case 'input_required':
      if (!isPlainObject(state.inputRequests) || Object.keys(state.inputRequests).length === 0)
        throw new Error('an input_required task needs its inputRequests');
      return { resultType: 'complete', ...fields, inputRequests: state.inputRequests };
    default:
      return { resultType: 'complete', ...fields };
  }
}

/** The acknowledgement of tasks/update and tasks/cancel: an empty result. */
export const TASK_ACK: Readonly<JsonObject> = Object.freeze({ resultType: 'complete' });

/** What a public task id stands for: the tool that made it and the app's own id. */
export interface TaskRef {
  readonly tool: string;
  readonly id: string;
}

const MAX_TASK_ID = 1024;

/**
 * Public task ids bind the app's id to the tool and to the caller (principal key) under the
 * replicas' shared key: `<base64url([tool, id])>.<HMAC>`. Any replica can check one without
 * shared memory, and another principal's id fails the check exactly like a made-up one.
 */
export class TaskIdBinder {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = createHmac('sha256', secret).update('mcp-task-id').digest();
  }

  mint(principalKey: string, ref: TaskRef): string {
    const payload = Buffer.from(JSON.stringify([ref.tool, ref.id])).toString('base64url');
    return `${payload}.${this.mac(principalKey, payload).toString('base64url')}`;
  }

  /** The ref, or undefined for anything not minted for this caller. */
  open(principalKey: string, taskId: string): TaskRef | undefined {
    if (taskId.length > MAX_TASK_ID) return undefined;
    const dot = taskId.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = taskId.slice(0, dot);
    const given = Buffer.from(taskId.slice(dot + 1), 'base64url');
    const expected = this.mac(principalKey, payload);
    // Canonical encoding only: base64url decoding ignores stray trailing characters.
    if (
      given.length !== expected.length ||
      given.toString('base64url') !== taskId.slice(dot + 1) ||
      !timingSafeEqual(given, expected)
    )
      return undefined;
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string')
        return { tool: value[0], id: value[1] };
    } catch {
      // fall through: not ours
    }
    return undefined;
  }

  private mac(principalKey: string, payload: string): Buffer {
    return createHmac('sha256', this.key).update(principalKey).update('\0').update(payload).digest().subarray(0, 18);
  }
}
