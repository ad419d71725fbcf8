import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { AppConfig } from '../config/app-config.js';

type CryptoKey = webcrypto.CryptoKey;

export const DEV_KEY_ALG = 'ES256';
const FILE = 'dev-signing-key.json';

export interface DevSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  /** The key as a private JWK, for the development authorization server's keystore (src/oauth). */
  readonly privateJwk: JWK;
}

type KeySource = Pick<AppConfig, 'dataDir' | 'devSigningKey' | 'devSigningKeyFile'>;

/**
 * The development authorization server's signing key. Given explicitly (DEV_SIGNING_KEY, or
 * DEV_SIGNING_KEY_FILE) it is the same on every replica, so a token minted against one verifies
 * on all; otherwise it is generated on first start in the data folder (mode 0600) and reused by
 * the app and by `npm run token` — one key per data folder.
 */
export async function loadOrCreateDevKey(source: KeySource): Promise<DevSigningKey> {
  const jwk = await privateJwk(source);
  const { d: _private, ...publicJwk } = jwk;
  const privateKey = (await importJWK(jwk, DEV_KEY_ALG)) as CryptoKey;
  return {
    kid: jwk.kid as string,
    privateKey,
    publicJwk: { ...publicJwk, alg: DEV_KEY_ALG, use: 'sig' },
    privateJwk: { ...jwk, alg: DEV_KEY_ALG, use: 'sig' },
  };
}

async function privateJwk(source: KeySource): Promise<JWK> {
  if (source.devSigningKey) return explicitKey(source.devSigningKey, 'DEV_SIGNING_KEY');
  if (source.devSigningKeyFile) {
    let text: string;
    try {
      text = readFileSync(source.devSigningKeyFile, 'utf8');
    } catch (error) {
      throw new Error(
        `DEV_SIGNING_KEY_FILE (${source.devSigningKeyFile}) cannot be read: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return explicitKey(text, 'DEV_SIGNING_KEY_FILE');
  }
  const path = join(source.dataDir, FILE);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as JWK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return createKeyFile(source.dataDir, path);
  }
}

/** A private P-256 JWK (the format of `dev-signing-key.json`); its kid is derived when absent. */
async function explicitKey(text: string, name: string): Promise<JWK> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error(`${name} must be a private JWK in JSON, such as the dev-signing-key.json of a data folder`);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') {
    throw new Error(`${name} must be a private EC P-256 JWK (kty "EC", crv "P-256", with "d")`);
  }
  return { ...jwk, alg: DEV_KEY_ALG, kid: jwk.kid ?? `dev-${(await calculateJwkThumbprint(jwk)).slice(0, 16)}` };
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
