export declare function redisToolsMissing(): string | undefined;
export interface RunningRedisCluster {
  /** Every server's port, primaries and replicas. */
  readonly ports: number[];
  /** REDIS_CLUSTER_NODES for the app. */
  readonly env: Record<string, string>;
  /** The port of the primary serving the key's slot now. */
  primaryOf(key: string): number | undefined;
  /** Resolves once every replica has what its primary had written when called. */
  replicasCaughtUp(): Promise<void>;
  /** SIGKILLs the primary serving the key's slot; resolves once a replica serves it and the cluster is ok. */
  killPrimaryOf(key: string): Promise<{ killed: number; promoted: number }>;
  stop(): Promise<void>;
}
export declare function startRedisCluster(options?: { replicas?: number }): Promise<RunningRedisCluster>;
export interface RunningRedisSentinel {
  /** REDIS_SENTINELS and REDIS_SENTINEL_NAME for the app. */
  readonly env: Record<string, string>;
  primaryPort(): number;
  /** Resolves once the replica has what the primary had written when called. */
  replicasCaughtUp(): Promise<void>;
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
