import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTelemetryConfig } from '../telemetry/telemetry-config.js';
import { launchChecks } from './launch-checks.js';

/**
 * The checks run while the app's modules load (kadu-process.ts): whatever goes wrong comes back as
 * lines to print, never as a rejection that would end the process with a stack trace.
 */
describe('the checks before anything is opened', () => {
  let dir: string;
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kadu-launch-checks-'));
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a configuration that passes comes back with no problem', async () => {
    const checks = await launchChecks(readTelemetryConfig({}), { DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1' });
    expect(checks.problems).toEqual([]);
    expect(checks.config?.dataDir).toBe(dir);
  });

  it('an unexpected failure is one line, not a rejection', async () => {
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: () => {
        throw new Error('the environment cannot be read\nsecond line');
      },
    });
    await expect(launchChecks(readTelemetryConfig({}), env)).resolves.toEqual({
      problems: ['the environment cannot be read'],
    });
  });

  it('what the probes find, one line each', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    const checks = await launchChecks(readTelemetryConfig({}), {
      DATA_DIR: join(file, 'data'),
      PORT: String(busyPort),
      HOST: '127.0.0.1',
    });
    expect(checks.config).toBeUndefined();
    expect(checks.problems).toEqual([
      `PORT: 127.0.0.1:${busyPort} is already in use by another process`,
      expect.stringMatching(/^DATA_DIR: .* is not writable \(ENOTDIR\)$/),
    ]);
  });
});
