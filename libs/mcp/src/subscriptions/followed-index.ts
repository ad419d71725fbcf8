import type { SubscriptionEvent, SubscriptionFilter } from '../protocol/index.js';

/** What the index needs of a stream: what it follows. */
interface Follower {
  readonly filter: SubscriptionFilter;
}

/**
 * The streams that follow each resource URI and each task id, so that a per-URI or per-task event
 * is written to its followers without looking at every stream.
 */
export class FollowedIndex<T extends Follower> {
  private readonly byUri = new Map<string, Set<T>>();
  private readonly byTask = new Map<string, Set<T>>();

  add(stream: T): void {
    for (const uri of stream.filter.resourceSubscriptions ?? []) entry(this.byUri, uri).add(stream);
    for (const task of stream.filter.taskIds ?? []) entry(this.byTask, task).add(stream);
  }

  remove(stream: T): void {
    for (const uri of stream.filter.resourceSubscriptions ?? []) drop(this.byUri, uri, stream);
    for (const task of stream.filter.taskIds ?? []) drop(this.byTask, task, stream);
  }

  /** The followers of a per-URI or per-task event; undefined for the broadcast kinds (list changes). */
  followersOf(event: SubscriptionEvent): { readonly indexed: boolean; readonly streams?: Set<T> } {
    if (event.type === 'resources/updated') return { indexed: true, streams: this.byUri.get(event.uri) };
    if (event.type === 'tasks/status') return { indexed: true, streams: this.byTask.get(event.taskId) };
    return { indexed: false };
  }
}

function entry<T>(map: Map<string, Set<T>>, key: string): Set<T> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

function drop<T>(map: Map<string, Set<T>>, key: string, value: T): void {
  const set = map.get(key);
  set?.delete(value);
  if (set?.size === 0) map.delete(key);
}
