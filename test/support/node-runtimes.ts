import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, run } from './example-apps.js';

const runtimes = new URL('../../tools/node-runtimes', import.meta.url).pathname;

/** Node 22 and Node 24 beside the machine's Node 20: tools/node-runtimes, with its own lockfile. */
export const NODE_RUNTIMES = {
  'Node 22': join(runtimes, 'node_modules/node22/bin/node'),
  'Node 24': join(runtimes, 'node_modules/node24/bin/node'),
} as const;

let installing: Promise<void> | undefined;

/** Installs them where this checkout has not yet (a clean clone), once per test process. */
export function installNodeRuntimes(): Promise<void> {
  if (Object.values(NODE_RUNTIMES).every((node) => existsSync(node))) return Promise.resolve();
  installing ??= run('npm', ['ci', '--prefix', runtimes, '--no-audit', '--no-fund', '--loglevel=error'], {
    env: cleanEnv,
  }).then(() => undefined);
  return installing;
}
