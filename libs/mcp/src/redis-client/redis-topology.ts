import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** One Redis server (`host:port`) of a seed list. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/**
 * Where Redis is, in each of the shapes deployments run it (docs/operators/topologies.md):
 * - `standalone`: one server, by URL (`redis://…`, `rediss://…`) — the default;
 * - `cluster`: Redis Cluster, found from seed nodes (any primaries or replicas of it);
 * - `sentinel`: a primary with replicas watched by Sentinels, found by its name; after a failover
 *   the clients reconnect to the promoted primary.
 */
export type RedisTopology =
  | { readonly mode: 'standalone'; readonly url: string }
  | {
      readonly mode: 'cluster';
      readonly nodes: readonly RedisNode[];
      readonly username?: string;
      readonly password?: string;
      readonly tls?: boolean;
    }
  | {
      readonly mode: 'sentinel';
      readonly sentinels: readonly RedisNode[];
      readonly name: string;
      readonly username?: string;
      readonly password?: string;
      readonly db?: number;
      readonly tls?: boolean;
    };

/** A connection to any topology: ioredis's `Redis` (standalone, Sentinel) or `Cluster`. */
export type RedisConnection = Redis | Cluster;

/** A URL is the standalone topology (what every Redis class of this package took before). */
export const topologyOf = (target: string | RedisTopology): RedisTopology =>
  typeof target === 'string' ? { mode: 'standalone', url: target } : target;

/**
 * The one place a connection is made, whatever the topology, with the caller's options (bounds,
 * offline queue, retries). In a cluster they apply to each node's connection, and the retry
 * strategy to the cluster's own reconnection; a Sentinel client also reconnects when a command
 * meets a replica (READONLY) — the old primary, demoted by a failover. `shardedSubscribers`: in a
 * cluster, a connection that will SSUBSCRIBE (the event bus).
 */
export function createRedis(
  target: string | RedisTopology,
  options: RedisOptions = {},
  { shardedSubscribers = false }: { shardedSubscribers?: boolean } = {},
): RedisConnection {
  const topology = topologyOf(target);
  if (topology.mode === 'standalone') return new Redis(topology.url, options);
  const auth = {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
  };
  if (topology.mode === 'sentinel') {
    return new Redis({
      ...options,
      ...auth,
      sentinels: topology.sentinels.map((n) => ({ host: n.host, port: n.port })),
      name: topology.name,
      ...(topology.db !== undefined ? { db: topology.db } : {}),
      sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
      reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
    });
  }
  const { retryStrategy, enableOfflineQueue, lazyConnect, ...nodeOptions } = options;
  return new Cluster(
    topology.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      redisOptions: { ...nodeOptions, ...auth },
      // A subscriber to sharded channels (SSUBSCRIBE) holds one connection per primary serving them.
      ...(shardedSubscribers ? { shardedSubscribers } : {}),
      ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
      ...(lazyConnect !== undefined ? { lazyConnect } : {}),
      clusterRetryStrategy: (attempt: number) =>
        retryStrategy ? (retryStrategy(attempt) ?? null) : Math.min(attempt * 100, 1000),
      // A moved slot or a failover inside the cluster: follow it a few times, then fail the command.
      maxRedirections: 16,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
    },
  );
}

/** Where the topology is, for a log line or a message (no credentials). */
export function describeRedis(target: string | RedisTopology): string {
  const topology = topologyOf(target);
  const list = (nodes: readonly RedisNode[]): string => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  if (topology.mode === 'cluster') return `Redis Cluster (seeds ${list(topology.nodes)})`;
  if (topology.mode === 'sentinel') return `Redis primary '${topology.name}' (Sentinels ${list(topology.sentinels)})`;
  try {
    const url = new URL(topology.url);
    return `Redis ${url.hostname || 'localhost'}:${url.port || 6379}`;
  } catch {
    return 'Redis';
  }
}

/**
 * Keys a Lua script or a multi-key command uses together must share a cluster slot: a `{tag}`
 * around the prefix puts every key under it in one slot (BullMQ requires it of its prefix).
 * Already tagged prefixes are kept as they are.
 */
export const hashTagged = (prefix: string): string => (/\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`);
