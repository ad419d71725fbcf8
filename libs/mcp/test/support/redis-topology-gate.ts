import type { RedisNode, RedisTopology } from '@kobana/nest-mcp/redis';
import { redisToolsMissing, startRedisCluster, startRedisSentinel } from './redis-topologies.mjs';
import type { Requirement } from './requirements.js';

/**
 * The contract specs on a real Redis Cluster (three primaries) and a real Sentinel-managed primary,
 * started by the test (./redis-topologies.mjs): skipped, saying why, only when redis-server is not
 * installed and CI is unset (./requirements.ts).
 */
export const REDIS_TOPOLOGIES = ['cluster', 'sentinel'] as const;

export function redisTools(): Requirement {
  const missing = redisToolsMissing();
  return missing ? { missing } : {};
}

export interface StartedTopology {
  readonly topology: RedisTopology;
  stop(): Promise<void>;
}

const nodes = (list: string): RedisNode[] =>
  list.split(',').map((address) => {
    const [host, port] = address.split(':');
    return { host: host!, port: Number(port) };
  });

/** Starts the topology and says where it is, as the package's RedisTopology. */
export async function startTopology(kind: (typeof REDIS_TOPOLOGIES)[number]): Promise<StartedTopology> {
  if (kind === 'cluster') {
    const cluster = await startRedisCluster();
    return { topology: { mode: 'cluster', nodes: nodes(cluster.env.REDIS_CLUSTER_NODES!) }, stop: cluster.stop };
  }
  const sentinel = await startRedisSentinel('mcp-contract');
  return {
    topology: { mode: 'sentinel', sentinels: nodes(sentinel.env.REDIS_SENTINELS!), name: 'mcp-contract' },
    stop: sentinel.stop,
  };
}
