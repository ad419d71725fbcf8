import { redisToolsMissing, startRedisCluster, type RunningRedisCluster } from '../../scripts/redis-topologies.mjs';
import { postgres, requires, type Requirement } from '../support/infrastructure.js';
import type { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { failoverPrefix, failoverSet, primaryKilledMidRun } from './redis-failover.scenario.js';

/**
 * Issue 33: two replicas on a Redis Cluster of three primaries, each with a replica
 * (`redis-cli --cluster create … --cluster-replicas 1`). The primary serving the execution queue's
 * slot (BullMQ's hash-tagged prefix) is SIGKILLed while approvals, webhook deliveries and long
 * executions are under way; its replica takes the slot over. No approval is lost, no webhook
 * attempt is sent twice, every execution succeeds (steps, cost once).
 */
const tools: Requirement = redisToolsMissing() ? { missing: redisToolsMissing() } : {};
const gate = requires(await postgres(), tools);
const prefix = failoverPrefix();
let s3: S3TestServer;
let cluster: RunningRedisCluster;
let set: ReplicaSet;

gate.describe('replicas: a Redis Cluster primary killed mid-run', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    cluster = await startRedisCluster({ replicas: 1 });
    set = await failoverSet(s3, cluster, prefix);
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    await s3?.close();
  });

  it("the queue's primary killed: no lost approval, no duplicate webhook attempt, every execution succeeds once", async () => {
    // The slot of every BullMQ key of the deployment: {<REDIS_PREFIX>queue} (src/kadu.module.ts).
    const queueKey = `{${prefix}queue}:executions:meta`;
    const ms = await primaryKilledMidRun(set, {
      env: cluster.env,
      replicasCaughtUp: () => cluster.replicasCaughtUp(),
      killPrimary: () => cluster.killPrimaryOf(queueKey),
    });
    console.log(`Cluster failover: the replica served the queue's slot ${ms} ms after the SIGKILL`);
  }, 180_000);
});
