import type { RedisNode, RedisTopology } from '@kobana/nest-mcp/redis';

/**
 * The Redis topology from the environment (docs/operators/topologies.md): REDIS_URL for one server
 * (the default), REDIS_CLUSTER_NODES for Redis Cluster (seed nodes), or REDIS_SENTINELS with
 * REDIS_SENTINEL_NAME for a Sentinel-managed primary; REDIS_USERNAME, REDIS_PASSWORD and
 * REDIS_TLS=true for the last two (a URL carries its own). At most one topology.
 */
export function redisTopology(env: NodeJS.ProcessEnv): RedisTopology | undefined {
  const set = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].filter((name) => env[name]);
  if (set.length > 1) throw new Error(`${set.join(' and ')} are both set: choose one Redis topology`);
  if (env.REDIS_SENTINEL_NAME && !env.REDIS_SENTINELS)
    throw new Error('REDIS_SENTINEL_NAME is set without REDIS_SENTINELS (host:port,host:port of the Sentinels)');
  const auth = {
    ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}),
    ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}),
    ...(env.REDIS_TLS === 'true' ? { tls: true } : {}),
  };
  // A URL that is not redis:// is named by the start-up check (startup-check.ts), with the others.
  if (env.REDIS_URL) return { mode: 'standalone', url: env.REDIS_URL };
  if (env.REDIS_CLUSTER_NODES)
    return { mode: 'cluster', nodes: nodes(env.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES'), ...auth };
  if (env.REDIS_SENTINELS) {
    if (!env.REDIS_SENTINEL_NAME)
      throw new Error(
        "REDIS_SENTINELS is set without REDIS_SENTINEL_NAME (the primary's name in the Sentinels, e.g. mymaster)",
      );
    return {
      mode: 'sentinel',
      sentinels: nodes(env.REDIS_SENTINELS, 'REDIS_SENTINELS'),
      name: env.REDIS_SENTINEL_NAME,
      ...auth,
    };
  }
  return undefined;
}

/** `host:port,host:port` (IPv6 as `[::1]:6379`). */
export function nodes(list: string, name: string): RedisNode[] {
  const parsed = list.split(',').map((item) => {
    const m = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(item.trim());
    const port = Number(m?.[3]);
    if (!m || port < 1 || port > 65535) throw new Error(`${name} must be host:port[,host:port…], got '${item.trim()}'`);
    return { host: m[1] ?? m[2]!, port };
  });
  return parsed;
}
