import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';

/** The state secret, loaded once at start (ConfigModule provides it to everything that seals). */
export const STATE_SECRET = Symbol('STATE_SECRET');

/**
 * The secret that seals cursors and request state: MCP_STATE_KEY (shared by every replica), or in
 * development a random key kept in the data folder so a restart does not invalidate cursors.
 */
export function loadStateKey(config: AppConfig): string {
  if (config.mcpStateKey) return config.mcpStateKey;
  const path = join(config.dataDir, 'mcp-state-key');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    mkdirSync(config.dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64url');
    writeFileSync(path, key, { mode: 0o600, flag: 'wx' });
    return readFileSync(path, 'utf8').trim();
  }
}
