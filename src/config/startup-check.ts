import { randomBytes } from 'node:crypto';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createRedis, describeRedis, type RedisTopology, topologyOf } from '@kobana/nest-mcp/redis';
import type { AppConfig } from './app-config.js';
import { describeValue } from '@kobana/nest-mcp';

/** Below this, MCP_STATE_KEY is refused: it seals cursors, request state and stored secrets. */
export const MIN_STATE_KEY_BYTES = 32;
const PROBE_TIMEOUT_MS = 3000;

/**
 * Everything that would make this process fail later, found before anything is opened: the
 * policy of the configuration first, then — at once, each within a few seconds — the listening
 * ports, the data folder, PostgreSQL and Redis. One line per problem, naming the variable.
 */
export async function startupProblems(
  config: AppConfig,
  env: NodeJS.ProcessEnv,
  extraPorts: { name: string; host: string; port: number }[] = [],
): Promise<string[]> {
  const problems = policyProblems(config, env);
  const probes = await Promise.all([
    portProblem('PORT', config.host, config.port),
    ...extraPorts.map((p) => portProblem(p.name, p.host, p.port)),
    dataDirProblem(config.dataDir),
    config.databaseUrl ? databaseProblem(config.databaseUrl) : undefined,
    config.redis ? redisProblem(config.redis) : undefined,
  ]);
  return [...problems, ...probes.filter((p): p is string => p !== undefined)];
}

/** The rules no probe is needed for. */
export function policyProblems(config: AppConfig, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const distributed = [config.databaseUrl && 'DATABASE_URL', config.redis && redisVariable(config.redis)]
    .filter(Boolean)
    .join(' and ');
  if (config.mcpStateKey !== undefined && Buffer.byteLength(config.mcpStateKey) < MIN_STATE_KEY_BYTES) {
    problems.push(
      `MCP_STATE_KEY is ${Buffer.byteLength(config.mcpStateKey)} bytes; it must be at least ${MIN_STATE_KEY_BYTES} (for example: openssl rand -base64 32)`,
    );
  }
  if (config.env === 'production' && config.mcpStateKey === undefined) {
    problems.push(
      distributed
        ? `${distributed} set in production without MCP_STATE_KEY: every replica must share one key (at least ${MIN_STATE_KEY_BYTES} bytes), or cursors and request state sealed by one replica fail on the others`
        : `NODE_ENV=production needs MCP_STATE_KEY (at least ${MIN_STATE_KEY_BYTES} bytes); a key generated in DATA_DIR is for development only`,
    );
  }
  if (config.devTokens && config.env === 'production' && env.ALLOW_DEV_TOKENS !== 'true') {
    problems.push(
      'NODE_ENV=production with development tokens: set OAUTH_ISSUER and OAUTH_JWKS_URL (or ALLOW_DEV_TOKENS=true to accept them anyway)',
    );
  }
  if (config.devTokens && distributed && !config.devSigningKey && !config.devSigningKeyFile) {
    problems.push(
      `development tokens with ${distributed} need DEV_SIGNING_KEY or DEV_SIGNING_KEY_FILE shared by every replica: each DATA_DIR makes its own key, so a token minted for one replica is refused by the others`,
    );
  }
  return problems;
}

/** Binds and releases the port, so a port in use is reported before the database is opened. */
export function portProblem(name: string, host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'EADDRINUSE'
          ? `${name}: ${host}:${port} is already in use by another process`
          : `${name}: cannot listen on ${host}:${port} (${error.code ?? error.message})`,
      ),
    );
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

export async function dataDirProblem(dir: string): Promise<string | undefined> {
  const probe = join(dir, `.write-probe-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    unlinkSync(probe);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `DATA_DIR: ${dir} is not writable (${code})`;
  }
}

export async function databaseProblem(url: string): Promise<string | undefined> {
  let where: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error('protocol');
    where = `${parsed.hostname || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL must be a postgres:// URL (postgres://user:password@host:port/database)';
  }
  // pg (and the pooler check on it) is loaded only when DATABASE_URL is set: the embedded topology never uses it.
  const { default: pg } = await import('pg');
  const { poolerProblem, refusedParameterProblem } = await import('./pooler-check.js');
  const connection = (): InstanceType<typeof pg.Client> => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    return client;
  };
  // The pooler check's two clients connect at once: on a direct connection each is a new server
  // process, which PostgreSQL starts in tens of milliseconds (bench/RESULTS.md, issue 32,
  // thirty-first pass).
  const clients = [connection(), connection()] as const;
  const connecting = clients.map((client) => client.connect());
  try {
    await Promise.all(connecting);
    await clients[0].query('select 1');
    return await poolerProblem(clients[0], clients[1], url);
  } catch (error) {
    return refusedParameterProblem(error) ?? `DATABASE_URL: cannot use PostgreSQL at ${where} (${causeOf(error)})`;
  } finally {
    // Each ended once its connection settled (ending one still connecting would send its server
    // a half-made session), and not waited for: nothing here needs the server's goodbye.
    clients.forEach((client, i) => void connecting[i]!.then(() => client.end()).catch(() => undefined));
  }
}

/** The variable an operator set for this topology, to name it in a message. */
const redisVariable = (topology: RedisTopology): string =>
  ({ standalone: 'REDIS_URL', cluster: 'REDIS_CLUSTER_NODES', sentinel: 'REDIS_SENTINELS' })[topology.mode];

export async function redisProblem(target: string | RedisTopology): Promise<string | undefined> {
  const topology = topologyOf(target);
  const variable = redisVariable(topology);
  if (topology.mode === 'standalone') {
    const url = topology.url;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('protocol');
    } catch {
      return `REDIS_URL must be a redis:// or rediss:// URL (redis://host:port/db), got '${url.length > 80 ? `${url.slice(0, 80)}…` : url}'`;
    }
  }
  const redis = createRedis(topology, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    commandTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: topology.mode === 'cluster', // a cluster sends nothing before it has its slots
  });
  // The connection's own error (ECONNREFUSED…) says more than the rejection ("Connection is closed").
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await bounded(redis.connect(), PROBE_TIMEOUT_MS);
    await bounded(redis.ping(), PROBE_TIMEOUT_MS);
    if (topology.mode === 'cluster') {
      const info = String(await bounded(redis.cluster('INFO'), PROBE_TIMEOUT_MS));
      if (!/cluster_state:ok/.test(info))
        return `${variable}: the Redis Cluster is not serving every slot (cluster_state is not ok)`;
    }
    return undefined;
  } catch (error) {
    const where =
      topology.mode === 'standalone'
        ? `Redis at ${describeRedis(topology).replace(/^Redis /, '')}`
        : describeRedis(topology);
    return `${variable}: cannot use ${where} (${causeOf(cause ?? error)})`;
  } finally {
    redis.disconnect();
  }
}

function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

/** The most telling short cause of a connection failure: its code, else its first line. */
function causeOf(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.find((x) => x.code)?.code;
  const message = (e.message ?? describeValue(error)).split('\n')[0]!.slice(0, 200);
  return code && !message.includes(code) ? `${code}: ${message}` : message || code || 'unknown error';
}
