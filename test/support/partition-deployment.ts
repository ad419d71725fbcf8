import { RemoteClient } from './remote-client.js';
import { PG_URL, REDIS_URL, ReplicaSet } from './replicas.js';
import type { S3TestServer } from './s3-server.js';
import { TcpProxy } from './tcp-proxy.js';

/** The bounds the partition tests configure, and what follows from them. */
export const TIMEOUT_MS = 2000;
export const LOCK_MS = 3000;
export const SWEEP_MS = 1000;
/** How long an orphaned execution can stay `running` or `queued` before the sweep ends it. */
export const DETECTION_MS = LOCK_MS + SWEEP_MS;

export interface PartitionDeployment {
  set: ReplicaSet;
  client: RemoteClient;
  /** Between every replica and PostgreSQL, and between every replica and Redis. */
  postgres: TcpProxy;
  redis: TcpProxy;
  stop(): Promise<void>;
}

/**
 * Three replicas that reach PostgreSQL and Redis only through proxies the test controls.
 * `redisTopology`: a test that cuts only PostgreSQL lets KADU_TEST_REDIS_TOPOLOGY (cluster,
 * sentinel) give the replicas their Redis instead of the proxied single server; its `redis` proxy
 * then carries nothing.
 */
export async function partitionDeployment(
  s3: S3TestServer,
  { redisTopology = false }: { redisTopology?: boolean } = {},
): Promise<PartitionDeployment> {
  const pgTarget = new URL(PG_URL);
  const redisTarget = new URL(REDIS_URL);
  const postgres = new TcpProxy(pgTarget.hostname, Number(pgTarget.port || 5432));
  const redis = new TcpProxy(redisTarget.hostname, Number(redisTarget.port || 6379));
  await postgres.start();
  await redis.start();
  const databaseUrl = new URL(PG_URL);
  databaseUrl.host = `127.0.0.1:${postgres.port}`;
  const redisUrl = new URL(REDIS_URL);
  redisUrl.host = `127.0.0.1:${redis.port}`;
  const set = await ReplicaSet.start({
    count: 3,
    s3,
    databaseUrl: databaseUrl.toString(),
    redisUrl: redisTopology && process.env.KADU_TEST_REDIS_TOPOLOGY ? undefined : redisUrl.toString(),
    env: {
      KADU_DEPENDENCY_TIMEOUT_MS: String(TIMEOUT_MS),
      KADU_QUEUE_LOCK_MS: String(LOCK_MS),
      KADU_SWEEP_INTERVAL_MS: String(SWEEP_MS),
      // Executions spend 1.5 s in their step, so the partition catches them mid-run.
      KADU_STEP_DELAY_MS: '1500',
    },
  });
  const client = new RemoteClient(set.url, await set.token(), await set.token({ audience: 'api' }));
  return {
    set,
    client,
    postgres,
    redis,
    async stop() {
      if (!postgres.running) await postgres.start();
      await set.stop();
      await postgres.stop();
      await redis.stop();
    },
  };
}

/** Executions of the deployment still `queued` or `running`. */
export async function unfinished(client: RemoteClient): Promise<{ id: string; status: string }[]> {
  const pending = [];
  for (const status of ['queued', 'running'])
    pending.push(...(await client.rest('get', `/api/v1/executions?status=${status}&limit=100`)).body.data);
  return pending;
}
