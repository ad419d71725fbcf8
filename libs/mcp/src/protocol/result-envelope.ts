import { META_SERVER_INFO } from './constants.js';
import type { JsonObject } from './jsonrpc.js';

export interface ServerInfo {
  readonly name: string;
  readonly title?: string;
  readonly version: string;
}

/** Methods whose complete 2026 results carry cache hints (2026-07-28 server/utilities/caching). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
]);

/** Methods that may answer `input_required` (2026-07-28 basic/patterns/mrtr §Supported Requests). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Results whose `ttlMs` is the task's lifetime (tasks.md §Tasks), not a cache hint: kept as the app gave it. */
export const TASK_RESULT_METHODS: ReadonlySet<string> = new Set(['tasks/get']);

const MODERN_ONLY_KEYS = ['resultType', 'ttlMs', 'cacheScope'] as const;

/**
 * 2026 results always carry `resultType` and the serverInfo `_meta` key; cacheable complete results
 * also carry `ttlMs: 0` and `cacheScope: "private"`, since what they hold is filtered by the caller's
 * permissions (docs/ladder.md §4). Never on `input_required` results.
 */
export function adaptResultForModernClient(method: string, result: JsonObject, serverInfo: ServerInfo): JsonObject {
  const resultType = typeof result.resultType === 'string' ? result.resultType : 'complete';
  if (resultType === 'input_required' && !INPUT_REQUIRED_METHODS.has(method)) {
    throw new Error(`${method} may not answer input_required`);
  }
  // tasks.md §Supported Methods: only tools/call may answer with a task.
  if (resultType === 'task' && method !== 'tools/call') throw new Error(`${method} may not answer with a task`);
  const meta = { ...(result._meta as JsonObject | undefined), [META_SERVER_INFO]: serverInfo };
  const adapted: JsonObject = { resultType, ...result, _meta: meta };
  adapted.resultType = resultType;
  if (resultType === 'complete' && CACHEABLE_METHODS.has(method)) {
    adapted.ttlMs ??= 0;
    adapted.cacheScope ??= 'private';
  } else if (resultType === 'task' || TASK_RESULT_METHODS.has(method)) {
    delete adapted.cacheScope;
  } else {
    delete adapted.ttlMs;
    delete adapted.cacheScope;
  }
  return adapted;
}

/**
 * The seed ADR's `adaptResponseForLegacyClient`: 2025 clients reject unknown top-level fields, so
 * nothing of the 2026 result envelope may reach them. `ping` must stay exactly `{}`. Given the
 * revision, a 2025-03-26 result also loses `structuredContent`, which that revision does not have.
 */
export function adaptResponseForLegacyClient(result: JsonObject, revision?: string): JsonObject {
  if (result.resultType === 'input_required') throw new Error('input_required has no meaning in the 2025 era');
  if (result.resultType === 'task') throw new Error('tasks are a 2026-era extension');
  const adapted: JsonObject = { ...result };
  for (const key of MODERN_ONLY_KEYS) delete adapted[key];
  if (revision !== undefined && revision < '2025-06-18') delete adapted.structuredContent;
  if (adapted._meta !== undefined && typeof adapted._meta === 'object' && adapted._meta !== null) {
    const meta = { ...(adapted._meta as JsonObject) };
    delete meta[META_SERVER_INFO];
    if (Object.keys(meta).length === 0) delete adapted._meta;
    else adapted._meta = meta;
  }
  return adapted;
}
