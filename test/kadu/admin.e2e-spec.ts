import request from 'supertest';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { local } from '../support/files.js';

/** Secrets (values never returned), members (owner only), me and usage. */
let kadu: KaduTestApp;
let owner: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  owner = new KaduClient(kadu, { role: 'owner', user: 'olga@acme.test' });
});
afterAll(() => kadu.close());

describe('secrets', () => {
  it('create returns an entry link; the page stores the value encrypted; nothing ever returns it', async () => {
    const created = await owner.rest('post', '/api/v1/secrets', { name: 'BANK_TOKEN', description: 'Bank API' });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toMatchObject({ name: 'BANK_TOKEN', version: 0, has_value: false });
    const page = await request(kadu.server).get(local(created.body.data.entry_url));
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('BANK_TOKEN');
    const saved = await request(kadu.server)
      .post(local(created.body.data.entry_url))
      .type('form')
      .send({ value: 's3cr3t-value' });
    expect(saved.status).toBe(200);
    const again = await request(kadu.server)
      .post(local(created.body.data.entry_url))
      .type('form')
      .send({ value: 'other' });
    // A used link says so (the page of an already-decided approval answers the same way).
    expect(again.status).toBe(409);
    expect(again.text).toContain('This link was already used');
    const read = await owner.rest('get', `/api/v1/secrets/${created.body.data.secret.id}`);
    expect(read.body.data).toMatchObject({ version: 1, has_value: true });
    for (const era of ERAS) {
      const listed = await owner.tool(era, 'kadu_secrets_list', {});
      const got = await owner.tool(era, 'kadu_secrets_get', { secret_id: created.body.data.secret.id });
      expect(JSON.stringify([listed.body, got.body, read.body])).not.toContain('s3cr3t');
      expect(got.body).toEqual(read.body);
      const rotate = await owner.tool(era, 'kadu_secrets_rotate', { secret_id: created.body.data.secret.id });
      expect(rotate.body.error.code).toMatch(/^approval_(required|pending)$/);
    }
    const rotated = await owner.rest('post', `/api/v1/secrets/${created.body.data.secret.id}/rotate`);
    expect(rotated.body.data.entry_url).toMatch(/\/secrets\/entry\//);
    const { DATABASE } = await import('../../src/db/database.js');
    const [row] = await (kadu.app.get(DATABASE) as import('../../src/db/database.js').Database).query<{
      value_sealed: string;
    }>('select value_sealed from secrets where id = $1', [created.body.data.secret.id]);
    expect(row!.value_sealed).toMatch(/^v1\./);
    expect(row!.value_sealed).not.toContain('s3cr3t');
  });
});

describe('secret entry links', () => {
  const sealedValue = async (secretId: string): Promise<string> => {
    const { DATABASE } = await import('../../src/db/database.js');
    const { SECRET_VALUE_BOX } = await import('../../src/secrets/secret-entry-links.js');
    const [row] = await (kadu.app.get(DATABASE) as import('../../src/db/database.js').Database).query<{
      value_sealed: string;
    }>('select value_sealed from secrets where id = $1', [secretId]);
    return (kadu.app.get(SECRET_VALUE_BOX) as import('../../src/common/secret-box.js').SecretBox).open(
      row!.value_sealed,
    );
  };
  const save = (url: string, value: string) => request(kadu.server).post(local(url)).type('form').send({ value });

  it('a new secret rotation cancels every earlier unused entry link: an older link never overwrites the value, whether the newer one was used or not', async () => {
    const created = await owner.rest('post', '/api/v1/secrets', { name: 'PAYROLL_KEY' });
    const id = created.body.data.secret.id as string;
    const links = [created.body.data.entry_url as string];
    for (let i = 0; i < 2; i++)
      links.push((await owner.rest('post', `/api/v1/secrets/${id}/rotate`)).body.data.entry_url as string);
    const [oldest, older, newest] = links as [string, string, string];

    // The newer link not used yet: the older one is refused all the same, and says why.
    const early = await save(older, 'from-the-older-link');
    expect(early.status).toBe(410);
    expect(early.text).toContain('This link was replaced');
    expect((await owner.rest('get', `/api/v1/secrets/${id}`)).body.data).toMatchObject({
      version: 0,
      has_value: false,
    });
    expect((await request(kadu.server).get(local(older))).status).toBe(410);

    expect((await save(newest, 'from-the-newest-link')).status).toBe(200);
    expect((await owner.rest('get', `/api/v1/secrets/${id}`)).body.data.version).toBe(1);
    // After the newer one was used: the oldest still cannot overwrite it.
    const late = await save(oldest, 'from-the-oldest-link');
    expect(late.status).toBe(410);
    expect((await owner.rest('get', `/api/v1/secrets/${id}`)).body.data.version).toBe(1);
    expect(await sealedValue(id)).toBe('from-the-newest-link');
  });

  it('a value the page refuses is said next to the field, never echoed, and the link still works', async () => {
    const created = await owner.rest('post', '/api/v1/secrets', { name: 'EMPTY_FIRST' });
    const url = created.body.data.entry_url as string;
    const empty = await save(url, '');
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('aria-invalid="true"');
    expect(empty.text).toContain('Type the value');
    const long = await save(url, `tooLong-${'x'.repeat(10_001)}`);
    expect(long.status).toBe(422);
    expect(long.text).not.toContain('tooLong-');
    expect((await save(url, 'finally')).status).toBe(200);
    expect(await sealedValue(created.body.data.secret.id)).toBe('finally');
  });
});

describe('members', () => {
  it('the owner manages members; an admin cannot', async () => {
    const added = await owner.rest('post', '/api/v1/members', { email: 'max@acme.test', name: 'Max', role: 'viewer' });
    expect(added.status).toBe(201);
    const admin = owner.as({ role: 'admin', user: 'ana@acme.test' });
    expect((await admin.rest('patch', `/api/v1/members/${added.body.data.id}`, { role: 'admin' })).status).toBe(403);
    const promoted = await owner.rest('patch', `/api/v1/members/${added.body.data.id}`, { role: 'operator' });
    expect(promoted.body.data.role).toBe('operator');
    for (const era of ERAS) {
      const list = await owner.tool(era, 'kadu_members_list', { limit: 50 });
      expect(list.body.data.map((m: { email: string }) => m.email)).toEqual(
        expect.arrayContaining(['max@acme.test', 'olga@acme.test']),
      );
      expect(
        (await owner.tool(era, 'kadu_members_update_role', { member_id: added.body.data.id, role: 'owner' })).body.error
          .code,
      ).toMatch(/^approval_(required|pending)$/);
      expect((await owner.tool(era, 'kadu_members_remove', { member_id: added.body.data.id })).body.error.code).toMatch(
        /^approval_(required|pending)$/,
      );
    }
    expect((await owner.rest('delete', `/api/v1/members/${added.body.data.id}`)).status).toBe(200);
    const removed = owner.as({ role: 'viewer', user: 'max@acme.test' });
    const res = await removed.rest('get', '/api/v1/me');
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('member_removed');
  });

  it('the last owner cannot be removed or demoted', async () => {
    const me = (await owner.rest('get', '/api/v1/me')).body.data.member;
    const res = await owner.rest('delete', `/api/v1/members/${me.id}`);
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('last_owner');
  });
});

describe('me and usage', () => {
  it.each(ERAS)('kadu_me_get and kadu_usage_get (%s) equal the REST routes', async (era) => {
    const me = await owner.tool(era, 'kadu_me_get');
    expect(me.body).toEqual((await owner.rest('get', '/api/v1/me')).body);
    expect(me.body.data).toMatchObject({
      organization: { slug: 'acme', plan: { name: 'starter' } },
      member: { email: 'olga@acme.test', role: 'owner' },
    });
    const usage = await owner.tool(era, 'kadu_usage_get');
    expect(usage.body).toEqual((await owner.rest('get', '/api/v1/usage')).body);
    expect(usage.body.data).toMatchObject({ period: expect.stringMatching(/^\d{4}-\d{2}$/), monthly_budget: 1000 });
  });
});
