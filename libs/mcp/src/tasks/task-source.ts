import type { McpPrincipal } from '../auth/principal.js';
import type { McpInputRound } from '../call/inputs.js';
import type { JsonObject, TaskRef, TaskState } from '../protocol/index.js';

export type {
  TaskRef as McpTaskRef,
  TaskState as McpTaskState,
  TaskStatus as McpTaskStatus,
} from '../protocol/index.js';

/** Who asks about a task: the authenticated caller of this request (its guards already ran). */
export interface McpTaskCaller {
  readonly principal?: McpPrincipal;
  readonly requestId: string;
}

/** A tool call the module answers with a task: what the tool's method returned, and for whom. */
export interface McpTaskCreation {
  readonly tool: string;
  readonly arguments: JsonObject;
  /** The method's return value (e.g. the id of the job it started, or the record it queued). */
  readonly value: unknown;
  readonly caller: McpTaskCaller;
}

/**
 * Where tasks live: the app's own durable store (its database), never the module's memory, so
 * any replica answers `tasks/get`. The module binds every public task id to the tool and to the
 * caller, decides access as it does for the tool, and answers an unknown id itself; the source
 * still scopes every read to the caller (defence in depth: undefined when not theirs).
 */
export interface McpTaskSource {
  /**
   * Records the task of a call whose tool may answer with one (`@McpTool({ task })`) and resolves
   * only once `get` would find it (tasks.md: durably created before `CreateTaskResult`).
   */
  create(creation: McpTaskCreation): Promise<TaskState>;
  /** The task as it is now, or undefined when unknown, expired or not the caller's. */
  get(ref: TaskRef, caller: McpTaskCaller): Promise<TaskState | undefined>;
  /**
   * Answers to outstanding input requests. `keys` are the answered keys that are outstanding right
   * now (answers to other keys were dropped, tasks.md §Task Update Requests); read each with
   * `inputs.elicitation(key, schema)` and friends. Keys the app mints must never repeat within a task.
   */
  update(ref: TaskRef, caller: McpTaskCaller, inputs: McpInputRound, keys: readonly string[]): Promise<void>;
  /** The caller asks to stop the task; cooperative (it may still finish). Idempotent on a finished task. */
  cancel(ref: TaskRef, caller: McpTaskCaller): Promise<void>;
}

/** What the app reports when one of its tasks changed (status, input requests, result). */
export interface McpTaskChange {
  readonly ref: TaskRef;
  /** The principal key of the caller the task belongs to, when the app knows it. */
  readonly principalKey?: string;
  /**
   * The task as it is now. With it and `principalKey`, and `subscriptions.tasks` on, the module
   * publishes `notifications/tasks` on the event bus, heard by the listen streams following the
   * task on every replica — whichever replica (a worker, a sweeper) made the change.
   */
  readonly state?: TaskState;
  /** Who may hear it, as `subscriptions.audience` (e.g. the organisation): defence in depth. */
  readonly audience?: string;
}
