import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { APP_ENTRY } from '../../scripts/app-entry.mjs';
import { startRedisCluster, startRedisSentinel } from '../../scripts/redis-topologies.mjs';
import { loadOrCreateDevKey } from '../../src/auth/dev-signing-key.js';
import { type DevTokenRequest, issueDevToken } from '../../src/auth/dev-token.js';
import { loadConfig } from '../../src/config/app-config.js';
import { RoundRobinBalancer } from './balancer.js';
import { freePort } from '../../scripts/free-port.mjs';
import { PG_URL, REDIS_URL } from './infrastructure.js';
import type { S3TestServer } from './s3-server.js';

export { PG_URL, REDIS_URL };

const ROOT = new URL('../..', import.meta.url).pathname;

/** One app process (the built `dist/`), with its own data folder, on its own ephemeral port. */
export class Replica {
  readonly logs: string[] = [];
  private exited?: Promise<void>;
  /** Resolves once the process has exited and its output has been read to the end. */
  private closed?: Promise<void>;
  /** This process printed that it listens on `port` (src/banner.ts), so the port is its own. */
  private listening = false;
  process?: ChildProcess;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly dataDir: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  start(env: Record<string, string>): void {
    const child = spawn(process.execPath, [join(ROOT, APP_ENTRY)], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const banner = new RegExp(`Kadu listening on http://\\S+:${this.port} `);
    this.listening = false;
    const keep = (line: string): void => {
      if (!this.listening) this.listening = banner.test(line);
      // Nest's start-up route listing (at debug since issue 32) is noise next to what a failing test needs to see.
      if (line && !/RouterExplorer|RoutesResolver|InstanceLoader/.test(line)) this.logs.push(line);
      if (this.logs.length > 400) this.logs.splice(0, this.logs.length - 400);
    };
    const ended = [child.stdout, child.stderr].map((stream) => {
      // Per stream: a chunk may end mid-line, and the other stream's chunk may come in between.
      let partial = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        lines.forEach(keep);
      });
      return new Promise<void>((resolve) =>
        stream.once('close', () => {
          keep(partial);
          resolve();
        }),
      );
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.closed = Promise.all([this.exited, ...ended]).then(() => undefined);
    this.process = child;
  }

  /**
   * Waits until this process has said it listens on its port and the port answers /health/live;
   * fails with its log if it exits first. The port was free when picked, but another process may
   * bind it before this one does: a server of a test file running in parallel would then answer
   * /health/live for it, so an answer alone does not say the replica is up.
   */
  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.alive) {
        await this.closed;
        const log = this.logs.join('\n');
        if (portTaken(this.port).test(log)) throw new PortTaken(this.port, log);
        throw new Error(`replica ${this.name} exited at start:\n${log}`);
      }
      const ok =
        this.listening &&
        (await fetch(`${this.url}/health/live`).then(
          (r) => r.ok,
          () => false,
        ));
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`replica ${this.name} did not start in ${timeoutMs} ms:\n${this.logs.join('\n')}`);
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.alive) return;
    this.process!.kill(signal);
    await this.exited;
  }

  /** Stops it the way an orchestrator does: SIGTERM, then SIGKILL after a grace period. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.alive) return;
    const timer = setTimeout(() => this.process?.kill('SIGKILL'), graceMs);
    this.process!.kill('SIGTERM');
    await this.exited;
    clearTimeout(timer);
  }
}

export interface ReplicaSetOptions {
  count: number;
  s3: S3TestServer;
  /** What the replicas connect to (a TcpProxy's address, for partition tests). */
  databaseUrl?: string;
  redisUrl?: string;
  /** The variables of a Redis Cluster or Sentinel setup the test runs itself (its failover tests). */
  redisTopology?: Record<string, string>;
  env?: Record<string, string>;
}

/**
 * One deployment of N replicas behind a round-robin balancer, as an operator runs it: separate
 * data folders (separate machines), one PostgreSQL schema, one Redis prefix, one bucket prefix,
 * one MCP_STATE_KEY and one development signing key given explicitly (DEV_SIGNING_KEY_FILE).
 * PUBLIC_BASE_URL is the balancer's, as it is behind a real load balancer.
 */
export class ReplicaSet {
  readonly balancer = new RoundRobinBalancer();
  readonly replicas: Replica[] = [];
  private readonly env: Record<string, string>;
  private readonly folders: string[] = [];
  private started = 0;
  /** The Redis Cluster or Sentinel setup this set runs on (KADU_TEST_REDIS_TOPOLOGY), stopped with it. */
  private topology?: { stop(): Promise<void>; failovers?(): number };

  private constructor(
    private readonly options: ReplicaSetOptions,
    readonly schema: string,
    keyFile: string,
  ) {
    // The test runner's own settings (loaders in NODE_OPTIONS, the test pass's KADU_TEST_*) are not the app's.
    const {
      NODE_OPTIONS: _loaders,
      KADU_TEST_DATABASE_URL: _db,
      KADU_TEST_REDIS_URL: _redis,
      KADU_TEST_S3_ENDPOINT: _s3,
      KADU_TEST_S3_BUCKET: _bucket,
      ...inherited
    } = process.env as Record<string, string>;
    this.env = {
      ...inherited,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      DATABASE_URL: options.databaseUrl ?? PG_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: options.redisUrl ?? REDIS_URL,
      REDIS_PREFIX: `kadu-rs-${randomBytes(6).toString('hex')}:`,
      MCP_STATE_KEY: randomBytes(32).toString('base64url'),
      DEV_SIGNING_KEY_FILE: keyFile,
      ...options.s3.env(),
      // Replica.ready() waits for the banner, an info line.
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      KADU_RATE_GENERAL: '100000/60',
      KADU_RATE_WRITES: '100000/60',
      KADU_RATE_FAILED_AUTH: '100000/60',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...options.env,
    };
  }

  static async start(options: ReplicaSetOptions): Promise<ReplicaSet> {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-build.mjs'), '--check'], {
      encoding: 'utf8',
    });
    if (check.status !== 0) throw new Error(check.stderr.trim());
    // The key an operator would copy from one data folder to a path every replica reads.
    const keyDir = mkdtempSync(join(tmpdir(), 'kadu-key-'));
    await loadOrCreateDevKey({ dataDir: keyDir });
    const set = new ReplicaSet(
      options,
      `kadu_rs_${randomBytes(6).toString('hex')}`,
      join(keyDir, 'dev-signing-key.json'),
    );
    set.folders.push(keyDir);
    // KADU_TEST_REDIS_TOPOLOGY=cluster|sentinel: the same flows on a local Redis Cluster of three
    // primaries, or on a Sentinel-managed primary (scripts/redis-topologies.mjs), instead of
    // REDIS_URL — unless the test brings its own topology (the failover tests).
    const topology = process.env.KADU_TEST_REDIS_TOPOLOGY;
    if (options.redisTopology) Object.assign(set.env, { REDIS_URL: '' }, options.redisTopology, options.env);
    else if ((topology === 'cluster' || topology === 'sentinel') && !options.redisUrl) {
      const running = topology === 'cluster' ? await startRedisCluster() : await startRedisSentinel();
      set.topology = running;
      Object.assign(set.env, { REDIS_URL: '' }, running.env, options.env);
    }
    await set.balancer.start();
    set.env.PUBLIC_BASE_URL = set.balancer.url;
    try {
      await Promise.all(Array.from({ length: options.count }, () => set.add()));
    } catch (error) {
      // No process outlives a failed start.
      await set.stop().catch(() => undefined);
      throw error;
    }
    return set;
  }

  /** Starts one more replica and puts it behind the balancer once it answers. */
  async add(env: Record<string, string> = {}): Promise<Replica> {
    const dataDir = mkdtempSync(join(tmpdir(), 'kadu-replica-'));
    this.folders.push(dataDir);
    const name = `r${++this.started}`;
    const replica = await startOnFreePort(
      name,
      dataDir,
      { ...this.env, ...env },
      {
        started: (r) => this.replicas.push(r),
        discarded: (r) => this.replicas.splice(this.replicas.indexOf(r), 1),
      },
    );
    this.balancer.add(replica);
    return replica;
  }

  get url(): string {
    return this.balancer.url;
  }

  /** A development token every replica accepts (their shared key), MCP audience unless said. */
  token(request: Partial<DevTokenRequest> = {}): Promise<string> {
    return issueDevToken(loadConfig(this.env), { org: 'acme', user: 'ana@acme.test', role: 'admin', ...request });
  }

  /** The replicas' last log lines, for a failure message. */
  logs(): string {
    return this.replicas
      .map((r) => `--- ${r.name} (${r.alive ? 'alive' : 'exited'})\n${r.logs.slice(-60).join('\n')}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.stop()));
    await this.balancer.stop();
    const failovers = this.topology?.failovers?.();
    if (failovers) console.warn(`replica set: the Sentinels failed the Redis primary over ${failovers} time(s)`);
    await this.topology?.stop();
    for (const folder of this.folders) rmSync(folder, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`drop schema if exists ${this.schema} cascade`);
    await client.end();
  }
}

/**
 * What the app prints when `port`, its PORT, is taken: its start-up check
 * (src/config/startup-check.ts) or, if the port was taken after that check, listen's own error.
 */
function portTaken(port: number): RegExp {
  return new RegExp(`PORT: \\S+:${port} is already in use|listen EADDRINUSE: address already in use \\S+:${port}\\b`);
}

/** The replica's port was bound by another process between `freePort` and the replica's listen. */
class PortTaken extends Error {
  constructor(port: number, log: string) {
    super(`port ${port} was taken by another process before the replica bound it:\n${log}`);
  }
}

/** Told of each process `startOnFreePort` starts, and of each it gave up on (it has exited). */
export interface StartedProcesses {
  started(replica: Replica): void;
  discarded(replica: Replica): void;
}

/**
 * Starts the app on a port `freePort` picked and waits until it is ready, picking another port
 * (three tries) when another process took that one first. `processes` hears of every process
 * started, so that the caller can stop one whose start failed.
 */
export async function startOnFreePort(
  name: string,
  dataDir: string,
  env: Record<string, string>,
  processes: StartedProcesses,
): Promise<Replica> {
  for (let attempt = 1; ; attempt++) {
    const replica = new Replica(name, await freePort(), dataDir);
    processes.started(replica);
    replica.start({ ...env, PORT: String(replica.port), DATA_DIR: dataDir });
    try {
      await replica.ready();
      return replica;
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
      processes.discarded(replica);
    }
  }
}
