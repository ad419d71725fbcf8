import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

type CryptoKey = webcrypto.CryptoKey;

export const DEV_KEY_ALG = 'ES256';
const FILE = 'dev-signing-key.json';

export interface DevSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/**
 * The development authorization server's signing key: generated on first start in the data folder
 * (mode 0600) and reused by the app and by `npm run token`, so their tokens agree.
 */
export async function loadOrCreateDevKey(dataDir: string): Promise<DevSigningKey> {
  const path = join(dataDir, FILE);
  let jwk: JWK;
  try {
    jwk = JSON.parse(readFileSync(path, 'utf8')) as JWK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    jwk = await createKeyFile(dataDir, path);
  }
  const { d: _private, ...publicJwk } = jwk;
  const privateKey = (await importJWK(jwk, DEV_KEY_ALG)) as CryptoKey;
  return { kid: jwk.kid as string, privateKey, publicJwk: { ...publicJwk, alg: DEV_KEY_ALG, use: 'sig' } };
}

async function createKeyFile(dataDir: string, path: string): Promise<JWK> {
  mkdirSync(dataDir, { recursive: true });
  const { privateKey } = await generateKeyPair(DEV_KEY_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = `dev-${Date.now().toString(36)}`;
  jwk.alg = DEV_KEY_ALG;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(jwk), { mode: 0o600 });
  try {
    // Two processes starting at once: the first rename wins and both read the winner's key.
    renameSync(tmp, path);
  } catch {
    /* keep the existing file */
  }
  return JSON.parse(readFileSync(path, 'utf8')) as JWK;
}
