export * from '../libs/mcp/test/support/redis-topologies.mjs';
