export declare function redisToolsMissing(): string | undefined;
export interface RunningRedisCluster {
  readonly ports: number[];
  /** REDIS_CLUSTER_NODES for the app. */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}
export declare function startRedisCluster(): Promise<RunningRedisCluster>;
export interface RunningRedisSentinel {
  /** REDIS_SENTINELS and REDIS_SENTINEL_NAME for the app. */
  readonly env: Record<string, string>;
  primaryPort(): number;
  /** SIGKILLs the current primary; resolves once the Sentinels have promoted the replica. */
  killPrimary(): Promise<{ killed: number; promoted: number }>;
  /** Failovers the Sentinels have made so far. */
  failovers(): number;
  stop(): Promise<void>;
}
export declare function startRedisSentinel(
  name?: string,
  options?: { downAfterMs?: number },
): Promise<RunningRedisSentinel>;
