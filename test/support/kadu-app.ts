import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { createKaduApp } from '../../src/bootstrap.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { issueDevToken, type DevTokenRequest } from '../../src/auth/dev-token.js';

export interface KaduTestApp {
  app: INestApplication;
  server: Server;
  config: AppConfig;
  /** A development token for this app (default: admin of org `acme`, MCP audience). */
  token(request?: Partial<DevTokenRequest>): Promise<string>;
  close(): Promise<void>;
}

/** The real Kadu app on its embedded defaults, in a fresh data folder. */
export async function startKadu(env: Record<string, string> = {}): Promise<KaduTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kadu-test-'));
  const config = loadConfig({ PORT: '3000', DATA_DIR: dataDir, NODE_ENV: 'test', ...env });
  const app = await createKaduApp(config, false);
  return {
    app,
    server: app.getHttpServer() as Server,
    config,
    token: (request = {}) =>
      issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin', ...request }),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
