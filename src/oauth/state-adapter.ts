import { type McpStateStore, StoreUnavailable } from '@kobana/nest-mcp';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** What an adapter needs from oidc-provider: its error for a code or refresh token spent twice. */
export interface AdapterErrors {
  invalidGrant(description: string): Error;
}

// Registered clients (no expiry of their own) are kept as long as a refresh token lives; a client
// forgotten after that registers again, as MCP clients do on invalid_client.
export const CLIENT_LIFETIME_MS = 14 * 24 * 3600_000;

/** The store could not be reached: the provider answers 503 rather than a bare 500. */
export class AuthorizationStateUnavailable extends Error {
  readonly statusCode = 503;
  readonly status = 503;
  readonly expose = false;
  constructor(cause: unknown) {
    super('the authorization server state store is unavailable', { cause });
  }
}

/**
 * oidc-provider's storage (sessions, interactions, grants, codes, tokens, registered clients) in
 * the app's state store: memory when embedded, Redis when distributed — so a sign-in started on
 * one replica finishes on another, and a code is spent once whichever replica it reaches.
 */
export function stateAdapter(store: McpStateStore, errors: AdapterErrors): new (model: string) => Adapter {
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw error instanceof StoreUnavailable ? new AuthorizationStateUnavailable(error) : error;
    }
  };

  return class StateStoreAdapter implements Adapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`;
    }

    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      return guarded(async () => {
        const ttlMs = expiresIn ? expiresIn * 1000 : CLIENT_LIFETIME_MS;
        await store.put(this.key(id), JSON.stringify(payload), ttlMs);
        if (payload.uid) await store.put(`${this.model}:uid:${payload.uid}`, id, ttlMs);
        if (payload.grantId) await this.remember(payload.grantId, this.key(id), ttlMs);
      });
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return guarded(async () => {
        const raw = await store.get(this.key(id));
        return raw ? (JSON.parse(raw) as AdapterPayload) : undefined;
      });
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return guarded(async () => {
        const id = await store.get(`${this.model}:uid:${uid}`);
        return id ? this.find(id) : undefined;
      });
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // the device flow is off
    }

    /** Atomic: of two replicas spending the same code or refresh token, one wins, the other is refused. */
    consume(id: string): Promise<void> {
      return guarded(async () => {
        const raw = await store.get(this.key(id));
        if (!raw) return;
        const payload = JSON.parse(raw) as AdapterPayload;
        if (payload.consumed) throw errors.invalidGrant('grant request is invalid');
        const spent = JSON.stringify({ ...payload, consumed: Math.floor(Date.now() / 1000) });
        if (!(await store.compareAndSet(this.key(id), raw, spent)))
          throw errors.invalidGrant('grant request is invalid');
      });
    }

    destroy(id: string): Promise<void> {
      return guarded(() => store.delete(this.key(id)));
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return guarded(async () => {
        const raw = await store.get(`grant-index:${grantId}`);
        const keys = raw ? (JSON.parse(raw) as string[]) : [];
        await Promise.all(keys.map((key) => store.delete(key)));
        await store.delete(`grant-index:${grantId}`);
      });
    }

    /** Adds a record to its grant's index (compare-and-set, so replicas adding at once lose nothing). */
    private async remember(grantId: string, key: string, ttlMs: number): Promise<void> {
      const indexKey = `grant-index:${grantId}`;
      for (let attempt = 0; attempt < 5; attempt++) {
        const raw = await store.get(indexKey);
        const keys = raw ? (JSON.parse(raw) as string[]) : [];
        if (keys.includes(key)) return;
        const next = JSON.stringify([...keys, key]);
        if (!raw) {
          await store.put(indexKey, next, Math.max(ttlMs, CLIENT_LIFETIME_MS));
          return;
        }
        if (await store.compareAndSet(indexKey, raw, next)) return;
      }
    }
  };
}
