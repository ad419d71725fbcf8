import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import { McpConfig } from '../mcp-config.js';
import type { McpAccessRequirement } from '../mcp.options.js';
import { AccessPolicy } from '../access/access-policy.js';
import { BoundedCache, PagedList } from './paged-list.js';

interface Listed {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly listing: Readonly<Record<string, unknown>>;
}

/**
 * The caller-visible, paged lists of tools, resources, templates and prompts. A list depends only
 * on the caller's visibility class (scopes + roles), so it is filtered and its pages serialized
 * once per class and reused — not per request.
 */
@Injectable()
export class VisibleLists {
  private readonly caches = new Map<string, BoundedCache<unknown>>();

  constructor(
    private readonly access: AccessPolicy,
    private readonly config: McpConfig,
  ) {}

  of<T extends Listed>(
    list: string,
    kind: McpAccessRequirement['kind'],
    principal: McpPrincipal | undefined,
    items: readonly T[],
    idOf: (item: T) => string,
    entryOf: (item: T) => unknown = (item) => item.listing,
  ): PagedList<T> {
    const build = (): PagedList<T> =>
      new PagedList<T>(
        list,
        items.filter(
          (item) =>
            this.access.decide(principal, { kind, name: idOf(item), scopes: item.scopes, roles: item.roles }) ===
            'allowed',
        ),
        idOf,
        entryOf,
        this.config.pageSize,
        this.config.stateKey,
      );
    const key = this.access.visibilityKey(principal);
    if (key === undefined) return build();
    let cache = this.caches.get(list);
    if (!cache) {
      cache = new BoundedCache(1024);
      this.caches.set(list, cache);
    }
    // One cache per list name, and each list name always holds the same item type.
    return cache.getOrCreate(key, build) as PagedList<T>;
  }
}
