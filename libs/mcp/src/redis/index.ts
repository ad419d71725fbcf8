// The Redis backend of the state store (needs ioredis): `@kobana/nest-mcp/redis`.
export { RedisStateStore, type RedisStateStoreOptions } from '../state/redis-state-store.js';
export { RedisEventBus, type RedisEventBusOptions } from '../events/redis-event-bus.js';
