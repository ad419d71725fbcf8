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

  it('the configuration’s problems and telemetry’s, together, without probing', async () => {
    const checks = await launchChecks(readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'carrier-pigeon' }), {
      DATA_DIR: dir,
      PORT: 'x',
    });
    expect(checks.config).toBeUndefined();
    expect(checks.problems).toHaveLength(2);
    expect(checks.problems[0]).toMatch(/^PORT /);
    expect(checks.problems[1]).toMatch(/^OTEL_METRICS_EXPORTER: unsupported exporter\(s\) carrier-pigeon/);
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
