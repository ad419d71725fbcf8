// Local Redis topologies for the tests (the app's docs/operators/topologies.md): a Redis Cluster of
// three primaries (each with a replica, when asked), and a primary with one replica watched by
// three Sentinels — real redis-server and redis-cli (Debian's redis package), on ephemeral loopback
// ports, in a folder of their own. The package's contract specs and the app's tests share it.
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
  spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 });

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
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
}

async function kill(victim) {
  victim.child.kill('SIGKILL');
  await victim.exited;
}

/** `INFO replication` of a server as a map (empty when it does not answer). */
function replicationOf(port) {
  const info = new Map();
  for (const line of cli(port, 'info', 'replication').stdout.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) info.set(line.slice(0, at), line.slice(at + 1));
  }
  return info;
}

/**
 * Resolves once every replica of the primary on `port` has acknowledged what the primary had
 * written when this was called (replication is asynchronous: what a test wrote just before it kills
 * the primary must be on the replica first, or the test measures luck, not the failover).
 */
async function replicasCaughtUp(port) {
  const written = Number(replicationOf(port).get('master_repl_offset'));
  await until(`the replicas of ${port} acknowledge offset ${written}`, () => {
    const info = replicationOf(port);
    const replicas = [...info.entries()].filter(([key]) => /^slave\d+$/.test(key)).map(([, value]) => value);
    return replicas.length > 0 && replicas.every((r) => Number(/offset=(\d+)/.exec(r)?.[1] ?? -1) >= written);
  });
}

const clusterArgs = (port) => [
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
];

/** `CLUSTER NODES` as seen from `port`: every node's port, role, primary and slot ranges. */
function clusterNodes(port) {
  return cli(port, 'cluster', 'nodes')
    .stdout.split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, address, flags, primaryId, , , , , ...slots] = line.split(' ');
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        primary: flags.includes('master') && !flags.includes('fail'),
        failed: flags.includes('fail'),
        primaryId,
        slots: slots.map((s) => s.split('-').map(Number)),
      };
    });
}

/**
 * Three primaries, every slot assigned, and `replicas` replicas of each (0: three servers; 1: six,
 * as `redis-cli --cluster create … --cluster-replicas 1` pairs them). REDIS_CLUSTER_NODES names
 * every server. `killPrimaryOf(key)` SIGKILLs the primary serving the key's slot and resolves once
 * its replica serves the slot and the cluster is `ok` again.
 */
export async function startRedisCluster({ replicas = 0 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'kadu-redis-cluster-'));
  const ports = await freePorts(3 * (1 + replicas));
  const nodes = ports.map((port) => server(dir, port, clusterArgs(port)));
  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  const stateOk = () => alive().every((n) => /cluster_state:ok/.test(cli(n.port, 'cluster', 'info').stdout));
  try {
    for (const port of ports) await until(`cluster node ${port}`, () => cli(port, 'ping').stdout.trim() === 'PONG');
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { encoding: 'utf8' },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create: ${create.stdout}${create.stderr}`);
    await until('cluster_state:ok on every node', stateOk);
    if (replicas > 0)
      await until('every replica in sync with its primary', () =>
        clusterNodes(ports[0])
          .filter((n) => !n.primary)
          .every((n) => replicationOf(n.port).get('master_link_status') === 'up'),
      );
  } catch (error) {
    await stopAll(nodes, dir);
    throw error;
  }
  const primaryOfSlot = (slot) => {
    const from = alive()[0].port;
    return clusterNodes(from).find((n) => n.primary && n.slots.some(([a, b = a]) => slot >= a && slot <= b))?.port;
  };
  return {
    ports,
    env: { REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(',') },
    primaryOf: (key) => primaryOfSlot(Number(cli(alive()[0].port, 'cluster', 'keyslot', key).stdout.trim())),
    async replicasCaughtUp() {
      for (const n of clusterNodes(alive()[0].port).filter((n) => n.primary)) await replicasCaughtUp(n.port);
    },
    async killPrimaryOf(key) {
      const slot = Number(cli(alive()[0].port, 'cluster', 'keyslot', key).stdout.trim());
      const before = primaryOfSlot(slot);
      await kill(nodes.find((n) => n.port === before));
      await until(
        `a replica takes slot ${slot} over`,
        () => {
          const now = primaryOfSlot(slot);
          return now !== undefined && now !== before && stateOk();
        },
        30_000,
      );
      return { killed: before, promoted: primaryOfSlot(slot) };
    },
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
    await until('replica in sync', () => replicationOf(replicaPort).get('master_link_status') === 'up');
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
    replicasCaughtUp: () => replicasCaughtUp(primaryNow()),
    async killPrimary() {
      const before = primaryNow();
      await kill(servers.find((s) => s.port === before));
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
