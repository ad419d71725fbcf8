import { randomUUID } from 'node:crypto';
import { eventually } from '../../test/support/eventually.js';
import {
  REDIS_TOPOLOGIES,
  redisTools,
  startTopology,
  type StartedTopology,
} from '../../test/support/redis-topology-gate.js';
import { redis, REDIS_URL, requires } from '../../test/support/requirements.js';
import type { SubscriptionEvent } from '../protocol/index.js';
import { InMemoryEventBus } from './in-memory-event-bus.js';
import { EventBusUnavailable, type McpEventBus } from './mcp-event-bus.js';
import { RedisEventBus } from './redis-event-bus.js';

/**
 * Two buses of one deployment (two processes' view of it: the same object for the embedded bus,
 * two connections on one prefix for Redis) and one of another deployment.
 */
interface Subject {
  a: McpEventBus;
  b: McpEventBus;
  other: McpEventBus;
  shared: boolean;
}

function collector(): { events: SubscriptionEvent[]; listener: (e: SubscriptionEvent) => void } {
  const events: SubscriptionEvent[] = [];
  return { events, listener: (e) => events.push(e) };
}

const updated = (uri: string, n?: number): SubscriptionEvent => ({
  type: 'resources/updated',
  uri,
  ...(n === undefined ? {} : { meta: { n } }),
});

function contract(make: () => Subject | Promise<Subject>): void {
  let s: Subject;
  beforeAll(async () => {
    s = await make();
  });
  afterAll(async () => {
    await s?.a.close();
    await s?.b.close();
    await s?.other.close();
  });

  it('says whether other processes see its events', async () => {
    expect(s.a.shared).toBe(s.shared);
  });

  it('an event published on one side reaches every subscriber of the deployment, in publish order', async () => {
    const uri = `test://${randomUUID()}`;
    const onA = collector();
    const onB = collector();
    const stopA = await s.a.subscribe(onA.listener);
    const stopB = await s.b.subscribe(onB.listener);
    for (let n = 0; n < 20; n++) await s.a.publish(updated(uri, n));
    const expected = Array.from({ length: 20 }, (_, n) => updated(uri, n));
    const mine = (list: SubscriptionEvent[]) => list.filter((e) => 'uri' in e && e.uri === uri);
    await eventually(
      'both subscribers have the 20 events',
      async () => mine(onA.events).length === 20 && mine(onB.events).length === 20,
    );
    expect(mine(onA.events)).toEqual(expected);
    expect(mine(onB.events)).toEqual(expected);
    stopA();
    stopB();
  });

  it('each kind of event crosses the bus unchanged', async () => {
    const seen = collector();
    const stop = await s.b.subscribe(seen.listener);
    const tag = randomUUID();
    const events: SubscriptionEvent[] = [
      { type: 'tools/list_changed', audience: tag },
      { type: 'prompts/list_changed', audience: tag },
      { type: 'resources/list_changed', audience: tag },
      { type: 'resources/updated', uri: 'test://x', audience: tag, meta: { status: 'running' } },
      { type: 'tasks/status', taskId: 't1', params: { status: 'working' }, audience: tag },
    ];
    for (const event of events) await s.a.publish(event);
    await eventually('all five arrive', async () => seen.events.filter((e) => e.audience === tag).length === 5);
    expect(seen.events.filter((e) => e.audience === tag)).toEqual(events);
    stop();
  });

  it('a stopped subscriber hears nothing more; the others still do', async () => {
    const uri = `test://${randomUUID()}`;
    const stopped = collector();
    const kept = collector();
    const stop = await s.b.subscribe(stopped.listener);
    const keep = await s.b.subscribe(kept.listener);
    stop();
    await s.a.publish(updated(uri, 1));
    await eventually('the kept subscriber hears it', async () => kept.events.some((e) => 'uri' in e && e.uri === uri));
    expect(stopped.events.filter((e) => 'uri' in e && e.uri === uri)).toEqual([]);
    keep();
  });

  it('another deployment (another prefix) does not hear it', async () => {
    const uri = `test://${randomUUID()}`;
    const foreign = collector();
    const local = collector();
    const stopForeign = await s.other.subscribe(foreign.listener);
    const stopLocal = await s.b.subscribe(local.listener);
    await s.a.publish(updated(uri));
    // Published after, on the other deployment: once it has arrived there, the first one would have too.
    await s.other.publish(updated(`${uri}/marker`));
    await eventually('the marker arrives on the other deployment', async () =>
      foreign.events.some((e) => 'uri' in e && e.uri === `${uri}/marker`),
    );
    await eventually('the event arrives on its own deployment', async () =>
      local.events.some((e) => 'uri' in e && e.uri === uri),
    );
    expect(foreign.events.some((e) => 'uri' in e && e.uri === uri)).toBe(false);
    stopForeign();
    stopLocal();
  });
}

describe('event bus contract: in memory', async () => {
  contract(() => {
    const bus = new InMemoryEventBus();
    return { a: bus, b: bus, other: new InMemoryEventBus(), shared: false };
  });
});

const shared = requires(await redis());

shared.describe('event bus contract: Redis pub/sub', async () => {
  const prefix = `mcp-bus-test-${randomUUID()}:`;
  contract(() => ({
    a: new RedisEventBus(REDIS_URL, prefix, { timeoutMs: 2000 }),
    b: new RedisEventBus(REDIS_URL, prefix, { timeoutMs: 2000 }),
    other: new RedisEventBus(REDIS_URL, `mcp-bus-test-${randomUUID()}:`, { timeoutMs: 2000 }),
    shared: true,
  }));

  it('a publish with Redis unreachable fails within its bound with EventBusUnavailable', async () => {
    const bus = new RedisEventBus('redis://127.0.0.1:1', 'x:', { timeoutMs: 300 });
    try {
      await expect(bus.publish(updated('test://nowhere'))).rejects.toBeInstanceOf(EventBusUnavailable);
    } finally {
      await bus.close();
    }
  });
});

// The same contract on Redis Cluster (a PUBLISH reaches subscribers on every node through the
// cluster bus) and on a Sentinel-managed primary.
for (const kind of REDIS_TOPOLOGIES) {
  requires(redisTools()).describe(`event bus contract: Redis ${kind} (started by the test)`, () => {
    let running: StartedTopology | undefined;
    // Registered first, so it runs after the contract's own afterAll has closed the buses.
    afterAll(() => running?.stop());
    contract(async () => {
      running = await startTopology(kind);
      const prefix = `mcp-bus-test-${randomUUID()}:`;
      return {
        a: new RedisEventBus(running.topology, prefix, { timeoutMs: 2000 }),
        b: new RedisEventBus(running.topology, prefix, { timeoutMs: 2000 }),
        other: new RedisEventBus(running.topology, `mcp-bus-test-${randomUUID()}:`, { timeoutMs: 2000 }),
        shared: true,
      };
    });
  });
}
