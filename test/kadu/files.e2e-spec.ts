import request from 'supertest';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { local, sha256 } from '../support/files.js';

/**
 * Files by presigned URL: signed, single object, single use, short-lived, checked on confirm.
 * These are the embedded store's URLs (this app signs and serves them), so the app keeps its local
 * store even in the distributed pass; the object store's URLs are tested in files-s3.e2e-spec.ts.
 */
let kadu: KaduTestApp;
let admin: KaduClient;
const LOCAL_STORE = { S3_BUCKET: '' };

beforeAll(async () => {
  kadu = await startKadu({ KADU_MAX_FILE_BYTES: '1024', ...LOCAL_STORE });
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

const bytes = Buffer.from('a,b\n1,2\n');
const declare = (extra: Record<string, unknown> = {}) => ({
  name: 'in.csv',
  content_type: 'text/csv',
  size: bytes.length,
  sha256: sha256(bytes),
  ...extra,
});

describe.each(ERAS)('kadu_files_create and confirm (%s)', (era) => {
  it('returns an upload URL; PUT then confirm makes the file ready', async () => {
    const created = await admin.tool(era, 'kadu_files_create', declare());
    expect(created.isError).toBe(false);
    expect(created.body.data.file).toMatchObject({ status: 'pending_upload', purpose: 'input', size: bytes.length });
    expect(Date.parse(created.body.data.upload_expires_at)).toBeGreaterThan(Date.now());
    const put = await request(kadu.server)
      .put(local(created.body.data.upload_url))
      .set('Content-Type', 'text/csv')
      .send(bytes);
    expect(put.status).toBe(204);
    const confirmed = await admin.tool(era, 'kadu_files_confirm', { file_id: created.body.data.file.id });
    expect(confirmed.body.data.status).toBe('ready');
    const list = await admin.tool(era, 'kadu_files_list', { status: 'ready' });
    expect(list.body.data.map((f: { id: string }) => f.id)).toContain(created.body.data.file.id);
  });
});

describe('presigned URLs', () => {
  async function created() {
    const res = await admin.rest('post', '/api/v1/files', declare());
    return { id: res.body.data.file.id as string, url: local(res.body.data.upload_url) };
  }

  it('a used upload URL is refused', async () => {
    const { url } = await created();
    expect((await request(kadu.server).put(url).send(bytes)).status).toBe(204);
    const again = await request(kadu.server).put(url).send(bytes);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('upload_url_used');
  });

  it('a tampered URL is refused: other file, other signature, download purpose', async () => {
    const a = await created();
    const b = await created();
    const swapped = a.url.replace(a.id, b.id);
    expect((await request(kadu.server).put(swapped).send(bytes)).status).toBe(403);
    expect(
      (
        await request(kadu.server)
          .put(a.url.replace(/sig=[^&]+/, 'sig=AAAA'))
          .send(bytes)
      ).status,
    ).toBe(403);
    expect((await request(kadu.server).get(a.url.replace('/uploads/', '/downloads/'))).status).toBe(403);
  });

  it('an expired URL is refused, and only once it has expired', async () => {
    const short = await startKadu({ KADU_UPLOAD_URL_TTL: '60', ...LOCAL_STORE });
    const real = Date.now.bind(Date);
    try {
      const client = new KaduClient(short);
      const first = await client.rest('post', '/api/v1/files', declare());
      const second = await client.rest('post', '/api/v1/files', declare());
      // The URLs carry their expiry in whole seconds: 30 s later they still work (leaving room for a slow
      // machine between issuing and sending), 61 s later not.
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + 30_000);
      expect((await request(short.server).put(local(first.body.data.upload_url)).send(bytes)).status).toBe(204);
      spy.mockImplementation(() => real() + 61_000);
      const put = await request(short.server).put(local(second.body.data.upload_url)).send(bytes);
      expect(put.status).toBe(403);
      expect(put.body.errors[0].code).toBe('url_expired');
    } finally {
      vi.restoreAllMocks();
      await short.close();
    }
  });

  it('bytes that differ from the declaration are rejected on confirm (422 file_mismatch)', async () => {
    const { id, url } = await created();
    await request(kadu.server).put(url).send(Buffer.from('a,b\n9,9\n'));
    const confirm = await admin.rest('post', `/api/v1/files/${id}/confirm`);
    expect(confirm.status).toBe(422);
    expect(confirm.body.errors[0].code).toBe('file_mismatch');
    expect((await admin.rest('get', `/api/v1/files/${id}`)).body.data.status).toBe('rejected');
  });

  it('an upload over the size limit is refused', async () => {
    expect((await admin.rest('post', '/api/v1/files', declare({ size: 5000 }))).body.errors[0].code).toBe(
      'file_too_large',
    );
    const { url } = await created();
    const put = await request(kadu.server).put(url).send(Buffer.alloc(4096, 1));
    expect(put.status).toBe(413);
  });

  it('a download URL is not handed out for a file that is not ready, and deleted files are gone', async () => {
    const { id } = await created();
    expect((await admin.rest('post', `/api/v1/files/${id}/download_url`)).status).toBe(409);
    expect((await admin.rest('delete', `/api/v1/files/${id}`)).status).toBe(200);
    expect((await admin.rest('get', `/api/v1/files/${id}`)).status).toBe(404);
    const del = await admin.tool('2026', 'kadu_files_delete', { file_id: id });
    // A deleted file is not found before anyone is asked to approve deleting it.
    expect(del.body).toMatchObject({ status: 404, errors: [{ code: 'not_found' }] });
  });
});
