import { loadConfig } from './app-config.js';
import { redisTopology } from './redis-config.js';

describe('the Redis topology from the environment', () => {
  it('REDIS_URL is one server (the default topology)', () => {
    expect(redisTopology({ REDIS_URL: 'redis://cache:6380/2' })).toEqual({
      mode: 'standalone',
      url: 'redis://cache:6380/2',
    });
    expect(redisTopology({})).toBeUndefined();
  });

  it('REDIS_CLUSTER_NODES is a seed list, with credentials and TLS from their own variables', () => {
    expect(
      redisTopology({
        REDIS_CLUSTER_NODES: 'a.internal:7000, 10.0.0.2:7001,[::1]:7002',
        REDIS_PASSWORD: 's3cret',
        REDIS_TLS: 'true',
      }),
    ).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'a.internal', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      password: 's3cret',
      tls: true,
    });
  });

  it('REDIS_SENTINELS with REDIS_SENTINEL_NAME is a Sentinel-managed primary', () => {
    expect(
      redisTopology({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'kadu', REDIS_USERNAME: 'app' }),
    ).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'kadu',
      username: 'app',
    });
  });

  it.each([
    [
      { REDIS_URL: 'redis://a', REDIS_CLUSTER_NODES: 'b:1' },
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: choose one Redis topology',
    ],
    [
      { REDIS_SENTINELS: 's1:26379' },
      "REDIS_SENTINELS is set without REDIS_SENTINEL_NAME (the primary's name in the Sentinels, e.g. mymaster)",
    ],
    [
      { REDIS_SENTINEL_NAME: 'kadu' },
      'REDIS_SENTINEL_NAME is set without REDIS_SENTINELS (host:port,host:port of the Sentinels)',
    ],
    [{ REDIS_CLUSTER_NODES: 'a:7000,b' }, "REDIS_CLUSTER_NODES must be host:port[,host:port…], got 'b'"],
    [{ REDIS_CLUSTER_NODES: 'a:70000' }, "REDIS_CLUSTER_NODES must be host:port[,host:port…], got 'a:70000'"],
  ])('refuses %j with one line', (env, line) => {
    expect(() => redisTopology(env)).toThrow(line);
    expect(() => loadConfig({ DATA_DIR: '/tmp/kadu-redis-config-spec', ...env })).toThrow(line);
  });

  it('any topology is a shared queue (KADU_EXECUTION_CONCURRENCY=0 allowed)', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/kadu-redis-config-spec',
      REDIS_CLUSTER_NODES: 'a:7000',
      KADU_EXECUTION_CONCURRENCY: '0',
    });
    expect(config.executionConcurrency).toBe(0);
    expect(config.redis).toEqual({ mode: 'cluster', nodes: [{ host: 'a', port: 7000 }] });
  });
});
