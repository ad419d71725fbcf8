// `@kobana/nest-mcp/redis`: the state store and the event bus for several replicas. A subpath of its own, so that
// apps without Redis never load ioredis (an optional peer dependency).
export { RedisStateStore, type RedisStateStoreOptions } from '../state/redis-state-store.js';
export { RedisEventBus, type RedisEventBusOptions } from '../events/redis-event-bus.js';
export {
  createRedis,
  describeRedis,
  hashTagged,
  topologyOf,
  type RedisConnection,
  type RedisNode,
  type RedisTopology,
} from '../redis-client/redis-topology.js';
