import { generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { legacyInitialize, legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

/** libs/mcp/docs/security.md §Authentication: the MCP endpoint as an OAuth resource server. */
let kadu: KaduTestApp;

beforeAll(async () => {
  kadu = await startKadu();
});
afterAll(() => kadu.close());

const discover = (token?: string) => {
  const r = modernRequest('server/discover', {}, { id: 1 });
  const req = request(kadu.server).post('/mcp').set(r.headers);
  if (token !== undefined) req.set('Authorization', `Bearer ${token}`);
  return req.send(r.body);
};

async function foreignToken(): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ org: 'acme', role: 'admin', scope: 'kadu.tasks.read' })
    .setProtectedHeader({ alg: 'ES256', kid: 'attacker' })
    .setIssuer(kadu.config.oauthIssuer)
    .setAudience(kadu.config.mcpAudience)
    .setSubject('eve@evil.test')
    .setExpirationTime('1h')
    .sign(privateKey);
}

describe('401 before any method', () => {
  it('no token: challenge with resource_metadata and scope, OAuth error body', async () => {
    const res = await discover();
    expect(res.status).toBe(401);
    const challenge = res.headers['www-authenticate'] as string;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"');
    expect(challenge).toContain('scope="kadu.tasks.read ');
    expect(challenge).not.toContain('error=');
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'a bearer token is required' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('the 2025 handshake is refused the same way', async () => {
    const r = legacyInitialize();
    const res = await request(kadu.server).post('/mcp').set(r.headers).send(r.body);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('resource_metadata=');
  });

  describe.each([
    ['2026-07-28', (token: string) => discover(token)],
    [
      '2025-06-18',
      (token: string) => {
        const r = legacyRequest('tools/list', {}, { id: 1 });
        return request(kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
      },
    ],
  ] as const)('%s', (version, send) => {
    it.each([
      ['signed by another key', () => foreignToken(), /signature/],
      ['expired', () => kadu.token({ ttlSeconds: -120 }), /expired/],
      ['issued for the REST API', () => kadu.token({ audience: 'api' }), /audience/],
      ['not a JWT', async () => 'not-a-jwt', /malformed/],
    ])('a token %s is rejected with invalid_token', async (_what, make, reason) => {
      const res = await send(await make());
      expect(res.status).toBe(401);
      const challenge = res.headers['www-authenticate'] as string;
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toMatch(/error_description="[^"]+"/);
      expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['mcp-protocol-version']).toBe(version);
      expect(res.body.error).toBe('invalid_token');
      expect(res.body.error_description).toMatch(reason);
    });
  });

  it('a token in the query string is not accepted', async () => {
    const token = await kadu.token();
    const r = modernRequest('server/discover', {}, { id: 1 });
    const res = await request(kadu.server).post(`/mcp?access_token=${token}`).set(r.headers).send(r.body);
    expect(res.status).toBe(401);
  });

  it('a valid token is accepted', async () => {
    expect((await discover(await kadu.token())).status).toBe(200);
  });
});

describe('two audiences', () => {
  it('the REST API refuses a token issued for the MCP endpoint', async () => {
    const res = await request(kadu.server)
      .get('/api/v1/me')
      .set('Authorization', `Bearer ${await kadu.token()}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, errors: [expect.objectContaining({ code: 'unauthorized' })] });
  });

  it('the REST API accepts its own audience and sees the verified principal', async () => {
    const token = await kadu.token({ audience: 'api', role: 'viewer' });
    const res = await request(kadu.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      organization: { slug: 'acme' },
      member: { email: 'ana@acme.test', role: 'viewer' },
    });
    expect(res.body.data.scopes).not.toContain('kadu.tasks.write');
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('scopes beyond the role are dropped from the principal', async () => {
    const token = await kadu.token({
      audience: 'api',
      role: 'viewer',
      scopes: ['kadu.tasks.read', 'kadu.members.write'],
    });
    const res = await request(kadu.server).get('/api/v1/me').set('Authorization', `Bearer ${token}`);
    expect(res.body.data.scopes).toEqual(['kadu.tasks.read']);
  });
});

describe('REST body limit', () => {
  it('a JSON body over 1 MiB gets the API 413 envelope', async () => {
    const token = await kadu.token({ audience: 'api' });
    const res = await request(kadu.server)
      .post('/api/v1/me')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 413, errors: [expect.objectContaining({ code: 'payload_too_large' })] });
  });

  it('a 500 KB body is read, not refused by a 100 KB default', async () => {
    const token = await kadu.token({ audience: 'api' });
    const res = await request(kadu.server)
      .post('/api/v1/me')
      .set('Authorization', `Bearer ${token}`)
      .send({ pad: 'x'.repeat(500_000) });
    expect(res.status).toBe(404);
    expect(res.body.errors[0].code).toBe('not_found');
  });
});

describe('Protected Resource Metadata (RFC 9728)', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    '%s',
    async (path) => {
      const res = await request(kadu.server).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
      expect(res.body).toEqual({
        resource: 'http://localhost:3000/mcp',
        authorization_servers: ['http://localhost:3000'],
        scopes_supported: expect.arrayContaining(['kadu.tasks.read', 'kadu.members.write']),
        bearer_methods_supported: ['header'],
        resource_name: 'Kadu MCP',
      });
    },
  );

  it('the development JWKS is published', async () => {
    const res = await request(kadu.server).get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(res.body.keys[0].d).toBeUndefined();
  });
});
