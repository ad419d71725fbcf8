import request from 'supertest';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { download, put, sha256 } from '../support/files.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Files in the distributed topology: an S3-compatible bucket (a local server that checks SigV4
 * signatures and expiry). Clients PUT and GET the bucket with its own presigned URLs; the app
 * verifies size and SHA-256 at confirm and never passes the bytes along.
 */
let s3: S3TestServer;
let kadu: KaduTestApp;
let admin: KaduClient;

beforeAll(async () => {
  s3 = await startS3Server();
  kadu = await startKadu({ ...s3.env(), KADU_MAX_FILE_BYTES: '1024', KADU_UPLOAD_URL_TTL: '120' });
  admin = new KaduClient(kadu);
});
afterAll(async () => {
  await kadu.close();
  await s3.close();
});

const bytes = Buffer.from('region,amount\nnorth,10\nsouth,5\n');
const declare = (extra: Record<string, unknown> = {}) => ({
  name: 'sales.csv',
  content_type: 'text/csv',
  size: bytes.length,
  sha256: sha256(bytes),
  ...extra,
});
const prefix = () => kadu.config.s3!.prefix;

async function created() {
  const res = await admin.rest('post', '/api/v1/files', declare());
  expect(res.status).toBe(201);
  return { id: res.body.data.file.id as string, url: res.body.data.upload_url as string };
}

it("upload and download URLs are the bucket's own, signed for the declared type and size; confirm makes the file ready", async () => {
  const { id, url } = await created();
  const upload = new URL(url);
  expect(upload.origin).toBe(s3.endpoint);
  expect(upload.pathname).toMatch(new RegExp(`^/${s3.bucket}/${prefix()}uploads/[0-9a-f-]+/${id}$`));
  expect(upload.searchParams.get('X-Amz-Expires')).toBe('120');
  expect(upload.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
  expect((await put(kadu, url, bytes, 'text/csv')).status).toBe(200);

  const confirmed = await admin.tool('2026', 'kadu_files_confirm', { file_id: id });
  expect(confirmed.body.data).toMatchObject({ id, status: 'ready', size: bytes.length });
  const link = (await admin.rest('post', `/api/v1/files/${id}/download_url`)).body.data.url as string;
  expect(new URL(link).pathname).toMatch(new RegExp(`^/${s3.bucket}/${prefix()}files/[0-9a-f-]+/${id}$`));
  const res = await fetch(link);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv');
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="sales.csv"');
  expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
});

it('the bucket refuses a body of another size or type and a URL bent to another object; nothing uploaded is upload_missing', async () => {
  const { id, url } = await created();
  const longer = await put(kadu, url, Buffer.concat([bytes, Buffer.from('x')]), 'text/csv');
  expect(longer.status).toBe(403);
  expect(longer.text).toContain('SignatureDoesNotMatch');
  expect((await put(kadu, url, bytes, 'text/plain')).status).toBe(403);
  const other = await created();
  expect((await put(kadu, url.replace(id, other.id), bytes, 'text/csv')).status).toBe(403);
  const nothing = await admin.rest('post', `/api/v1/files/${id}/confirm`);
  expect(nothing.status).toBe(409);
  expect(nothing.body.errors[0].code).toBe('upload_missing');
  // The URL's lifetime is the bucket's to enforce: it is signed into the URL (X-Amz-Expires, asserted above).
});

it("this app's own upload and download routes do not exist when files are in a bucket", async () => {
  const res = await request(kadu.server).get(
    '/api/v1/downloads/0190c0de-0000-7000-8000-000000000001?org=x&expires=1&sig=x',
  );
  expect(res.status).toBe(404);
  expect(res.body.errors[0].code).toBe('not_found');
  expect(
    (
      await request(kadu.server)
        .put('/api/v1/uploads/0190c0de-0000-7000-8000-000000000001?org=x&expires=1&sig=x')
        .send('x')
    ).status,
  ).toBe(404);
});

it('bytes other than the declared ones are rejected at confirm (422 file_mismatch)', async () => {
  const { id, url } = await created();
  const same = Buffer.from(bytes.toString().replace('north', 'NORTH'));
  expect((await put(kadu, url, same, 'text/csv')).status).toBe(200);
  const confirm = await admin.rest('post', `/api/v1/files/${id}/confirm`);
  expect(confirm.status).toBe(422);
  expect(confirm.body.errors[0].code).toBe('file_mismatch');
  expect((await admin.rest('get', `/api/v1/files/${id}`)).body.data.status).toBe('rejected');
});

it('after confirm the upload URL can no longer change the file', async () => {
  const { id, url } = await created();
  await put(kadu, url, bytes, 'text/csv');
  expect((await admin.rest('post', `/api/v1/files/${id}/confirm`)).status).toBe(200);
  // The bucket still takes a PUT on the URL until it expires, but the ready file is another object.
  const replay = Buffer.from(bytes.toString().replace('south', 'SOUTH'));
  expect((await put(kadu, url, replay, 'text/csv')).status).toBe(200);
  expect((await admin.rest('post', `/api/v1/files/${id}/confirm`)).body.data).toMatchObject({
    status: 'ready',
    sha256: sha256(bytes),
  });
  const link = (await admin.rest('post', `/api/v1/files/${id}/download_url`)).body.data.url;
  expect((await download(kadu, link)).text).toBe(bytes.toString());
});

it('an execution reads its input from the bucket and writes its output there', async () => {
  const { id, url } = await created();
  await put(kadu, url, bytes, 'text/csv');
  await admin.rest('post', `/api/v1/files/${id}/confirm`);
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'sum', kind: 'csv_summary', cost_cap: 50 })).body
    .data;
  const run = await admin.rest('post', `/api/v1/tasks/${task.id}/run`, { input_file_ids: [id] });
  const done = await admin.waitForExecution(run.body.data.id);
  expect(done).toMatchObject({ status: 'succeeded', output: { rows: 2, totals: { amount: 15 } } });
  const link = (await admin.rest('post', `/api/v1/files/${done.output_file_ids[0]}/download_url`)).body.data.url;
  expect(new URL(link).origin).toBe(s3.endpoint);
  expect(JSON.parse((await download(kadu, link)).text)).toMatchObject({ rows: 2 });
});

it('bytes deleted from the bucket under a ready file: 410 in the API envelope, a clear execution failure, no crash', async () => {
  const { id, url } = await created();
  await put(kadu, url, bytes, 'text/csv');
  await admin.rest('post', `/api/v1/files/${id}/confirm`);
  const link = (await admin.rest('post', `/api/v1/files/${id}/download_url`)).body.data.url as string;
  await s3.deleteObject(new URL(link).pathname.slice(`/${s3.bucket}/`.length));

  const gone = await admin.rest('post', `/api/v1/files/${id}/download_url`);
  expect(gone.status).toBe(410);
  expect(gone.body).toEqual({
    status: 410,
    errors: [
      { code: 'file_gone', title: 'File gone', detail: "The file's bytes are no longer available; upload it again" },
    ],
  });
  const tool = await admin.tool('2025', 'kadu_files_download', { file_id: id });
  expect(tool.isError).toBe(true);
  expect(tool.body.errors[0].code).toBe('file_gone');
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'sum gone', kind: 'csv_summary', cost_cap: 50 })).body
    .data;
  const run = await admin.rest('post', `/api/v1/tasks/${task.id}/run`, { input_file_ids: [id] });
  expect(await admin.waitForExecution(run.body.data.id)).toMatchObject({
    status: 'failed',
    error: { code: 'input_file_unavailable' },
  });
  expect((await admin.rest('get', '/api/v1/me')).status).toBe(200);
});

it('the bucket unreachable or silent: 503 with Retry-After within the bound, and service resumes', async () => {
  const proxy = new TcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port));
  await proxy.start();
  const app = await startKadu({
    ...s3.env(),
    S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
    KADU_DEPENDENCY_TIMEOUT_MS: '1000',
  });
  try {
    const client = new KaduClient(app);
    const res = await client.rest('post', '/api/v1/files', declare());
    const { id } = res.body.data.file;
    // The presigned URL names the endpoint the app was given; the client reaches the store there.
    expect((await put(app, res.body.data.upload_url, bytes, 'text/csv')).status).toBe(200);
    for (const cut of [() => proxy.blackhole(), () => proxy.stop()]) {
      await cut();
      const started = Date.now();
      const confirm = await client.rest('post', `/api/v1/files/${id}/confirm`);
      expect(Date.now() - started).toBeLessThan(1000 + 1000);
      expect(confirm.status).toBe(503);
      expect(confirm.headers['retry-after']).toBe('5');
      expect(confirm.body.errors[0].code).toBe('storage_unavailable');
      if (proxy.running) proxy.heal();
      else await proxy.start();
    }
    expect((await client.rest('post', `/api/v1/files/${id}/confirm`)).body.data.status).toBe('ready');
  } finally {
    await app.close();
    await proxy.stop();
  }
});
