import { createHash } from 'node:crypto';
import { McpRejectionError } from '../errors.js';
import {
  invalidParams,
  type JsonObject,
  type JsonRpcId,
  openCursor,
  RawJson,
  sealCursor,
  sharedResult,
} from '../protocol/index.js';

export interface ListPage {
  readonly items: RawJson;
  readonly nextCursor?: string;
  /** The list method's result for this page, built once and shared (its bytes are encoded once per era). */
  result?: JsonObject;
}

/**
 * One caller-visible list (tools, resources, templates or prompts), paged with sealed cursors.
 * Each page is serialized the first time it is asked for and then reused for every caller with
 * the same visibility, so `tools/list` costs a lookup, not a JSON.stringify of every schema.
 */
export class PagedList<T> {
  readonly scope: string;
  private readonly pages: (ListPage | undefined)[] = [];

  constructor(
    kind: string,
    readonly items: readonly T[],
    private readonly idOf: (item: T) => string,
    private readonly entryOf: (item: T) => unknown,
    private readonly pageSize: number,
    private readonly key: Buffer,
  ) {
    const digest = createHash('sha256').update(kind);
    for (const item of items) digest.update('\0').update(idOf(item));
    this.scope = digest.digest('base64url').slice(0, 22);
  }

  /** Undefined when the cursor is forged, edited, or belongs to another list or visibility. */
  page(cursor: unknown): ListPage | undefined {
    let offset = 0;
    if (cursor !== undefined) {
      const opened = openCursor(this.key, cursor, this.scope);
      if (opened === undefined || opened % this.pageSize !== 0 || opened >= this.items.length) return undefined;
      offset = opened;
    }
    const index = offset / this.pageSize;
    let page = this.pages[index];
    if (!page) {
      const items = new RawJson(JSON.stringify(this.items.slice(offset, offset + this.pageSize).map(this.entryOf)));
      const next = offset + this.pageSize;
      page =
        next < this.items.length
          ? { items, nextCursor: sealCursor(this.key, { scope: this.scope, offset: next }) }
          : { items };
      this.pages[index] = page;
    }
    return page;
  }

  has(id: string): boolean {
    return this.items.some((item) => this.idOf(item) === id);
  }
}

/** A small insertion-ordered cache; the oldest entry goes when it is full. */
export class BoundedCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  getOrCreate(key: string, create: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const value = create();
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, value);
    return value;
  }
}

/** The result of a list method: one page under `key`, and `nextCursor` when there is more. */
export function pageResult<T>(
  list: PagedList<T>,
  call: { id: JsonRpcId; params: JsonObject },
  key: string,
): JsonObject {
  const page = list.page(call.params.cursor);
  if (!page) throw new McpRejectionError(invalidParams(call.id, 'Invalid params: invalid or expired cursor'));
  // A PagedList always answers under the same key (one list kind), so one result per page.
  page.result ??= sharedResult(
    page.nextCursor ? { [key]: page.items, nextCursor: page.nextCursor } : { [key]: page.items },
  );
  return page.result;
}
