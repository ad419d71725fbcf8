import type { JsonObject } from './jsonrpc.js';
import type { JsonRpcId } from './rejection.js';

/**
 * `subscriptions/listen` (2026-07-28, basic/patterns/subscriptions): the pure parts — reading the
 * filter a client asks for, cutting it to what the server offers, and the shapes of the messages
 * on the stream. No transport, no Nest.
 */

/** Every notification on a listen stream carries the listen request's id under this key (SEP-2575). */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

/** The filter of `params.notifications`; `taskIds` belongs to the Tasks extension (SEP-2663). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  taskIds?: string[];
}

/** What a server can deliver on a stream; discover advertises exactly these. */
export interface SubscriptionOffer {
  readonly toolsListChanged: boolean;
  readonly promptsListChanged: boolean;
  readonly resourcesListChanged: boolean;
  /** Per-URI `notifications/resources/updated` (advertised as `resources.subscribe`). */
  readonly resourceSubscriptions: boolean;
  readonly taskIds: boolean;
}

/** The changes a server publishes; each becomes one notification on the streams that want it. */
export type SubscriptionEvent =
  | {
      readonly type: 'tools/list_changed' | 'prompts/list_changed' | 'resources/list_changed';
      readonly audience?: string;
    }
  | { readonly type: 'resources/updated'; readonly uri: string; readonly audience?: string; readonly meta?: JsonObject }
  | { readonly type: 'tasks/status'; readonly taskId: string; readonly params: JsonObject; readonly audience?: string };

export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params: JsonObject;
}

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;
const LISTS = ['resourceSubscriptions', 'taskIds'] as const;
const MAX_ENTRY_LENGTH = 2048;

/**
 * Reads `params.notifications`. The schema requires the object (SubscriptionsListenRequestParams);
 * unknown keys are ignored (a newer client may ask for kinds this server does not know, and the
 * acknowledgement tells it what it got). Returns the reason for a -32602 when it is malformed.
 */
export function parseSubscriptionFilter(params: JsonObject): { filter: SubscriptionFilter } | { error: string } {
  const raw = params.notifications;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: '"notifications" must be an object (the subscription filter)' };
  const source = raw as JsonObject;
  const filter: SubscriptionFilter = {};
  for (const key of FLAGS) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') return { error: `"notifications.${key}" must be a boolean` };
    if (value) filter[key] = true;
  }
  for (const key of LISTS) {
    const value = source[key];
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '' || v.length > MAX_ENTRY_LENGTH)) {
      return {
        error: `"notifications.${key}" must be an array of non-empty strings (at most ${MAX_ENTRY_LENGTH} characters each)`,
      };
    }
    const unique = [...new Set(value as string[])];
    if (unique.length) filter[key] = unique;
  }
  return { filter };
}

/** The requested kinds the server offers; the stream never carries a kind outside it ("MUST NOT send unrequested types"). */
export function offeredPart(requested: SubscriptionFilter, offer: SubscriptionOffer): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  for (const key of FLAGS) if (requested[key] && offer[key]) honoured[key] = true;
  for (const key of LISTS) if (requested[key]?.length && offer[key]) honoured[key] = [...requested[key]];
  return honoured;
}

/** True when the server offers nothing: listen stays an unknown method and discover advertises nothing. */
export function offersNothing(offer: SubscriptionOffer): boolean {
  return !FLAGS.some((k) => offer[k]) && !offer.resourceSubscriptions && !offer.taskIds;
}

/** The capabilities `server/discover` adds for an offer (2026 `listChanged`/`subscribe` mean "deliverable on listen"). */
export function offeredCapabilities(offer: SubscriptionOffer): {
  tools: JsonObject;
  prompts: JsonObject;
  resources: JsonObject;
} {
  return {
    tools: offer.toolsListChanged ? { listChanged: true } : {},
    prompts: offer.promptsListChanged ? { listChanged: true } : {},
    resources: {
      ...(offer.resourceSubscriptions ? { subscribe: true } : {}),
      ...(offer.resourcesListChanged ? { listChanged: true } : {}),
    },
  };
}

/** Whether a stream with this honoured filter wants the event (audience is the caller's business). */
export function filterWants(filter: SubscriptionFilter, event: SubscriptionEvent): boolean {
  switch (event.type) {
    case 'tools/list_changed':
      return filter.toolsListChanged === true;
    case 'prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'resources/list_changed':
      return filter.resourcesListChanged === true;
    case 'resources/updated':
      return filter.resourceSubscriptions?.includes(event.uri) === true;
    case 'tasks/status':
      return filter.taskIds?.includes(event.taskId) === true;
  }
}

const tag = (id: JsonRpcId, extra?: JsonObject): JsonObject => ({ ...extra, [SUBSCRIPTION_ID_META]: id });

/** The first message on every stream: what the server agreed to honour. */
export function acknowledgement(id: JsonRpcId, honoured: SubscriptionFilter): JsonRpcNotification {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: honoured as JsonObject, _meta: tag(id) },
  };
}

/** The notification an event becomes on the stream opened by request `id`. */
export function eventNotification(id: JsonRpcId, event: SubscriptionEvent): JsonRpcNotification {
  switch (event.type) {
    case 'resources/updated':
      return {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: event.uri, _meta: tag(id, event.meta) },
      };
    case 'tasks/status':
      return {
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...event.params, taskId: event.taskId, _meta: tag(id) },
      };
    default:
      return { jsonrpc: '2.0', method: `notifications/${event.type}`, params: { _meta: tag(id) } };
  }
}

/** The server's graceful end of a stream: the (empty) listen result, then the stream closes. */
export function listenEnd(id: JsonRpcId): { jsonrpc: '2.0'; id: JsonRpcId; result: JsonObject } {
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: tag(id) } };
}

/** One SSE event carrying one JSON-RPC message; the JSON stays on one line (the suite reads line by line). */
export function sseMessage(message: object): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

// Stands for the subscription id while an event is serialized; a control character, so an id or
// an event that happens to hold it only costs the slow path, never a wrong splice.
const ID_SLOT = '\u0000subscription-id\u0000';
const ID_SLOT_JSON = JSON.stringify(ID_SLOT);

/**
 * The SSE bytes of one event for any stream, the event serialized once: the notification is
 * encoded with a placeholder id and each stream's id (its JSON) is spliced in. The bytes are
 * exactly `sseMessage(eventNotification(id, event))` — key order and escaping included, since both
 * come from the same serialization. One buffer per distinct id, shared by the streams that use it
 * (many clients number their listen request 1).
 */
export function sseEventBytes(event: SubscriptionEvent): (id: JsonRpcId) => Buffer {
  const template = sseMessage(eventNotification(ID_SLOT, event));
  const at = template.indexOf(ID_SLOT_JSON);
  const byId = new Map<JsonRpcId, Buffer>();
  // The placeholder occurs once unless the event itself carries it: then each id is serialized whole.
  const spliceable = at >= 0 && template.indexOf(ID_SLOT_JSON, at + 1) < 0;
  const head = spliceable ? Buffer.from(template.slice(0, at)) : undefined;
  const tail = spliceable ? Buffer.from(template.slice(at + ID_SLOT_JSON.length)) : undefined;
  return (id) => {
    let bytes = byId.get(id);
    if (!bytes) {
      bytes =
        head && tail
          ? Buffer.concat([head, Buffer.from(JSON.stringify(id)), tail])
          : Buffer.from(sseMessage(eventNotification(id, event)));
      byId.set(id, bytes);
    }
    return bytes;
  };
}

/** An SSE comment: ignored by clients, it keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT = ': keep-alive\n\n';
