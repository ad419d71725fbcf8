import { redisToolsMissing, startRedisSentinel, type RunningRedisSentinel } from '../../scripts/redis-topologies.mjs';
import { postgres, requires, type Requirement } from '../support/infrastructure.js';
import type { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { failoverPrefix, failoverSet, primaryKilledMidRun } from './redis-failover.scenario.js';

/**
 * Issue 33: two replicas on a Sentinel-managed Redis (a primary, one replica, three Sentinels); the
 * primary is SIGKILLed while approvals, webhook deliveries and long executions are under way. No
 * approval is lost, no webhook attempt is sent twice, every execution succeeds (steps, cost once).
 */
const tools: Requirement = redisToolsMissing() ? { missing: redisToolsMissing() } : {};
const gate = requires(await postgres(), tools);
let s3: S3TestServer;
let sentinel: RunningRedisSentinel;
let set: ReplicaSet;

gate.describe('replicas: the Sentinel primary killed mid-run', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    sentinel = await startRedisSentinel();
    set = await failoverSet(s3, sentinel, failoverPrefix());
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await sentinel?.stop();
    await s3?.close();
  });

  it('no lost approval, no duplicate webhook attempt, every execution succeeds once', async () => {
    const ms = await primaryKilledMidRun(set, { ...sentinel, killPrimary: () => sentinel.killPrimary() });
    console.log(`Sentinel failover: the new primary named ${ms} ms after the SIGKILL`);
  }, 180_000);
});
