// The local Redis Cluster and Sentinel setups live with the package's tests, whose contract specs
// run on them too (libs/mcp/test/support/redis-topologies.mjs); the app's tests import them here.
export * from '../libs/mcp/test/support/redis-topologies.mjs';
