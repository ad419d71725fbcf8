import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedEmbeddedDatabase } from './kadu-app.js';
import { type Replica, startOnFreePort } from './replicas.js';

/**
 * `npm start` on a fresh machine: the built app (`node dist/kadu/kadu.cjs`, what `npm start` runs
 * after building) in an empty data folder, on its embedded defaults, as a separate process.
 */
export class FreshStart {
  private constructor(
    readonly app: Replica,
    private readonly dataDir: string,
  ) {}

  /**
   * `seeded`: the embedded database is copied from the run's migrated template, for a test that is
   * about something else than the first start (which then takes seconds, not tens of seconds).
   */
  static async start(env: Record<string, string> = {}, { seeded = false } = {}): Promise<FreshStart> {
    const dataDir = mkdtempSync(join(tmpdir(), 'kadu-fresh-'));
    if (seeded) seedEmbeddedDatabase(dataDir);
    // The test runner's own settings (loaders, the distributed pass's services) are not the app's.
    const {
      NODE_OPTIONS: _n,
      NODE_ENV: _e,
      KADU_TEST_DATABASE_URL: _d,
      KADU_TEST_REDIS_URL: _r,
      KADU_TEST_S3_ENDPOINT: _s,
      KADU_TEST_S3_BUCKET: _b,
      VITEST: _v,
      ...inherited
    } = process.env as Record<string, string>;
    let app: Replica;
    let starting: Replica | undefined;
    try {
      // LOG_LEVEL: Replica.ready() waits for the banner, an info line.
      app = await startOnFreePort(
        'app',
        dataDir,
        { ...inherited, LOG_LEVEL: 'info', ...env },
        { started: (r) => (starting = r), discarded: () => (starting = undefined) },
      );
    } catch (error) {
      await starting?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
    return new FreshStart(app, dataDir);
  }

  /** The public URL `npm start` prints (PUBLIC_BASE_URL defaults to http://localhost:<port>). */
  get url(): string {
    return `http://localhost:${this.app.port}`;
  }

  async stop(): Promise<void> {
    await this.app.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
