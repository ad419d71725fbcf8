// Local Redis topologies for the tests (docs/operators/topologies.md): a Redis Cluster of three
// primaries, and a primary with one replica watched by three Sentinels — real redis-server and
// redis-cli (Debian's redis package), on ephemeral loopback ports, in a folder of their own.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Undefined when redis-server and redis-cli can run here, else what is missing. */
export function redisToolsMissing() {
  for (const tool of ['redis-server', 'redis-cli'])
    if (spawnSync(tool, ['--version']).status !== 0) return `${tool} (apt-get install redis)`;
  return undefined;
}

async function freePorts(count) {
  const servers = await Promise.all(
    Array.from({ length: count }, () => {
      const server = createServer();
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      });
    }),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

const cli = (port, ...args) =>
  spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });

async function until(what, probe, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (probe()) return;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

function server(dir, port, args) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...args], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { port, child, exited };
}

async function stopAll(processes, dir) {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
}

/** Three primaries (no replicas), every slot assigned; REDIS_CLUSTER_NODES names all three. */
export async function startRedisCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'kadu-redis-cluster-'));
  const ports = await freePorts(3);
  const nodes = ports.map((port) =>
    server(dir, port, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      '2000',
      '--save',
      '',
      '--appendonly',
      'no',
    ]),
  );
  try {
    for (const port of ports) await until(`cluster node ${port}`, () => cli(port, 'ping').stdout.trim() === 'PONG');
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8' },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create: ${create.stdout}${create.stderr}`);
    for (const port of ports)
      await until(`cluster_state:ok on ${port}`, () => /cluster_state:ok/.test(cli(port, 'cluster', 'info').stdout));
  } catch (error) {
    await stopAll(nodes, dir);
    throw error;
  }
  return {
    ports,
    env: { REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(',') },
    stop: () => stopAll(nodes, dir),
  };
}

/**
 * A primary, one replica, three Sentinels (quorum 2, a primary down after `downAfterMs`: long
 * enough that a loaded test machine is not taken for a dead primary). `killPrimary()` SIGKILLs
 * whichever server is the primary now and resolves once the Sentinels name another.
 */
export async function startRedisSentinel(name = 'kadu', { downAfterMs = 3000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'kadu-redis-sentinel-'));
  const [primaryPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  const data = ['--save', '', '--appendonly', 'no'];
  const servers = [
    server(dir, primaryPort, data),
    server(dir, replicaPort, [...data, '--replicaof', '127.0.0.1', String(primaryPort)]),
  ];
  const sentinels = sentinelPorts.map((port) => {
    const file = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const child = spawn('redis-server', [file, '--sentinel', '--logfile', join(dir, `sentinel-${port}.log`)], {
      stdio: 'ignore',
    });
    return { port, child, exited: new Promise((resolve) => child.once('exit', resolve)) };
  });
  const all = [...servers, ...sentinels];
  const primaryNow = () => {
    const answer = cli(sentinelPorts[0], 'sentinel', 'get-master-addr-by-name', name).stdout.trim().split('\n');
    return Number(answer[1]);
  };
  try {
    await until('replica in sync', () => /master_link_status:up/.test(cli(replicaPort, 'info', 'replication').stdout));
    for (const port of sentinelPorts)
      await until(`Sentinel ${port} sees the replica and the other Sentinels`, () => {
        const lines = cli(port, 'sentinel', 'master', name).stdout.split('\n');
        const value = (key) => Number(lines[lines.indexOf(key) + 1]);
        return value('num-slaves') >= 1 && value('num-other-sentinels') >= 2;
      });
  } catch (error) {
    await stopAll(all, dir);
    throw error;
  }
  return {
    env: { REDIS_SENTINELS: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','), REDIS_SENTINEL_NAME: name },
    primaryPort: primaryNow,
    async killPrimary() {
      const before = primaryNow();
      const victim = servers.find((s) => s.port === before);
      victim.child.kill('SIGKILL');
      await victim.exited;
      await until('the Sentinels promote the replica', () => primaryNow() !== before && primaryNow() > 0, 30_000);
      return { killed: before, promoted: primaryNow() };
    },
    /** Failovers the Sentinels have made so far (their +switch-master events). */
    failovers: () => failoversIn(dir, sentinelPorts[0]),
    stop: () => stopAll(all, dir),
  };
}

function failoversIn(dir, port) {
  try {
    return readFileSync(join(dir, `sentinel-${port}.log`), 'utf8').split('+switch-master').length - 1;
  } catch {
    return 0;
  }
}
