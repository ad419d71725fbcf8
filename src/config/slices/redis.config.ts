import type { RedisTopology } from '@kobana/nest-mcp/redis';
import { redisTopology } from '../redis-config.js';
import { flag, prefix, text, withRule } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

/** The topology rules (one topology, a Sentinel name with the Sentinels…) live in redis-config.ts. */
const topologyRule = (_raw: string | undefined, env: NodeJS.ProcessEnv): string | undefined => {
  try {
    redisTopology(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

const NODES = '`host:port,…` (IPv6 as `[::1]:6379`)';
const BOTH = ' (with `REDIS_CLUSTER_NODES` or `REDIS_SENTINELS`; a URL carries its own)';

class RedisEnv {
  @Env(withRule(text, topologyRule, '`redis://` or `rediss://` URL (reached at start)'), {
    meaning:
      'Redis for the distributed topology: the MCP state store (approvals, request-state nonces, budgets), the event bus of `subscriptions/listen` and the execution queue (BullMQ)',
  })
  REDIS_URL?: string;

  @Env(text, {
    allowed: NODES,
    meaning:
      'instead of `REDIS_URL`: Redis Cluster, its seed nodes ([topologies](topologies.md#redis-one-server-cluster-or-sentinel))',
  })
  REDIS_CLUSTER_NODES?: string;

  @Env(text, {
    allowed: NODES,
    meaning: 'instead of `REDIS_URL`: the Sentinels of a Sentinel-managed primary, with `REDIS_SENTINEL_NAME`',
  })
  REDIS_SENTINELS?: string;

  @Env(text, { meaning: "the primary's name in the Sentinels (e.g. `mymaster`)" })
  REDIS_SENTINEL_NAME?: string;

  @Env(text, { meaning: `Redis user${BOTH}` })
  REDIS_USERNAME?: string;

  @Env(text, { meaning: `Redis password${BOTH}` })
  REDIS_PASSWORD?: string;

  @Env(flag, { default: 'false', meaning: `TLS to Redis${BOTH}` })
  REDIS_TLS!: boolean;

  @Env(prefix, { default: 'kadu:', meaning: 'key prefix in Redis, so deployments can share a server' })
  REDIS_PREFIX!: string;
}

export interface RedisConfig {
  /** Where Redis is: REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (redis-config.ts). */
  readonly redis?: RedisTopology;
  /** Key prefix in Redis (REDIS_PREFIX), so several deployments can share one server. */
  readonly redisPrefix: string;
}

export const redisConfig = defineSlice('redis', RedisEnv, ['redis', 'redisPrefix'], (values, env): RedisConfig => ({
  redis: redisTopology(env),
  redisPrefix: values.REDIS_PREFIX,
}));
