import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { loadOrCreateDevKey } from '../../src/auth/dev-signing-key.js';
import { issueDevToken } from '../../src/auth/dev-token.js';
import { loadConfig } from '../../src/config/app-config.js';
import { startKadu } from '../support/kadu-app.js';

/**
 * Development tokens across replicas: each data folder makes its own signing key, so a token
 * minted against one replica fails on another — unless the key is given explicitly.
 */
it('with DEV_SIGNING_KEY_FILE, a token minted with another data folder is accepted; without it, refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kadu-devkey-'));
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const keyFile = join(dir, 'shared-key.json');
  writeFileSync(keyFile, JSON.stringify(await exportJWK(privateKey)));
  const [shared, own] = await Promise.all([startKadu({ DEV_SIGNING_KEY_FILE: keyFile }), startKadu()]);
  try {
    // What `npm run token` prints on another machine (its own data folder) given the same key file.
    const elsewhere = loadConfig({ DATA_DIR: join(dir, 'elsewhere'), DEV_SIGNING_KEY_FILE: keyFile });
    const token = await issueDevToken(elsewhere, {
      org: 'acme',
      user: 'ana@acme.test',
      role: 'admin',
      audience: 'api',
    });
    const request = (await import('supertest')).default;
    expect((await request(shared.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const refused = await request(own.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('signature');
  } finally {
    await Promise.all([shared.close(), own.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

it('DEV_SIGNING_KEY inline is the same key as in a file; anything but a private P-256 JWK is refused with a clear message', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = JSON.stringify(await exportJWK(privateKey));
  const dir = mkdtempSync(join(tmpdir(), 'kadu-devkey-'));
  try {
    writeFileSync(join(dir, 'key.json'), jwk);
    const inline = await loadOrCreateDevKey({ dataDir: dir, devSigningKey: jwk });
    const fromFile = await loadOrCreateDevKey({ dataDir: dir, devSigningKeyFile: join(dir, 'key.json') });
    expect(inline.publicJwk).toEqual(fromFile.publicJwk);
    expect(inline.kid).toMatch(/^dev-/);
    await expect(
      loadOrCreateDevKey({ dataDir: dir, devSigningKey: JSON.stringify(await exportJWK(publicKey)) }),
    ).rejects.toThrow(/private EC P-256 JWK/);
    await expect(loadOrCreateDevKey({ dataDir: dir, devSigningKey: 'not json' })).rejects.toThrow(
      /DEV_SIGNING_KEY must be a private JWK/,
    );
    await expect(loadOrCreateDevKey({ dataDir: dir, devSigningKeyFile: join(dir, 'missing.json') })).rejects.toThrow(
      /DEV_SIGNING_KEY_FILE .* cannot be read/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the new bounds and the object store are read from the environment', () => {
  const config = loadConfig({
    KADU_DEPENDENCY_TIMEOUT_MS: '1500',
    KADU_SWEEP_INTERVAL_MS: '250',
    S3_BUCKET: 'files',
    S3_ENDPOINT: 'http://127.0.0.1:9000',
    S3_FORCE_PATH_STYLE: 'true',
  });
  expect(config).toMatchObject({ dependencyTimeoutMs: 1500, sweepIntervalMs: 250, queueLockMs: 10_000 });
  expect(config.s3).toMatchObject({
    bucket: 'files',
    endpoint: 'http://127.0.0.1:9000',
    region: 'us-east-1',
    forcePathStyle: true,
    prefix: '',
  });
  expect(loadConfig({}).s3).toBeUndefined();
  expect(() => loadConfig({ KADU_DEPENDENCY_TIMEOUT_MS: '0' })).toThrow(
    /KADU_DEPENDENCY_TIMEOUT_MS must be at least 1/,
  );
  expect(() => loadConfig({ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'only-one' })).toThrow(/go together/);
  expect(() => loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'not a url' })).toThrow();
});
