import { rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { download, local, uploadFile } from '../support/files.js';

/**
 * The embedded store's bytes taken away from under a ready file (deleted, damaged, or on another
 * machine's disk): every path that reads them answers in the API envelope — never a broken
 * stream, never a crashed process.
 */
let kadu: KaduTestApp;
let admin: KaduClient;

beforeAll(async () => {
  kadu = await startKadu({ S3_BUCKET: '' });
  admin = new KaduClient(kadu);
});
afterAll(() => kadu.close());

const GONE = {
  status: 410,
  errors: [
    { code: 'file_gone', title: 'File gone', detail: "The file's bytes are no longer available; upload it again" },
  ],
};

async function orgIdOf(fileId: string): Promise<string> {
  const { DATABASE } = await import('../../src/db/database.js');
  const db = kadu.app.get(DATABASE) as import('../../src/db/database.js').Database;
  const [row] = await db.query<{ org_id: string }>('select org_id from files where id = $1', [fileId]);
  return row!.org_id;
}

const bytesPath = async (fileId: string) => join(kadu.config.dataDir, 'files', await orgIdOf(fileId), fileId);

it('a download URL issued before the bytes vanished answers 410 in the envelope, and the app keeps serving', async () => {
  const id = await uploadFile(kadu, admin, 'ledger.csv', 'a,b\n1,2\n');
  const url = (await admin.rest('post', `/api/v1/files/${id}/download_url`)).body.data.url as string;
  expect(await download(kadu, url)).toMatchObject({ status: 200, text: 'a,b\n1,2\n' });
  rmSync(await bytesPath(id));

  const res = await request(kadu.server).get(local(url));
  expect(res.status).toBe(410);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual(GONE);
  const again = await admin.rest('post', `/api/v1/files/${id}/download_url`);
  expect(again.status).toBe(410);
  expect(again.body).toEqual(GONE);
  expect((await admin.rest('get', '/api/v1/me')).status).toBe(200);
});

it('damaged bytes (not the recorded size) are not served', async () => {
  const id = await uploadFile(kadu, admin, 'short.csv', 'a,b\n1,2\n3,4\n');
  const url = (await admin.rest('post', `/api/v1/files/${id}/download_url`)).body.data.url as string;
  truncateSync(await bytesPath(id), 3);
  const res = await request(kadu.server).get(local(url));
  expect(res.status).toBe(410);
  expect(res.body).toEqual(GONE);
});

it('an execution whose input bytes are gone fails with input_file_unavailable', async () => {
  const id = await uploadFile(kadu, admin, 'sales.csv', 'amount\n1\n2\n');
  rmSync(await bytesPath(id));
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'sum', kind: 'csv_summary', cost_cap: 20 })).body
    .data;
  const run = await admin.rest('post', `/api/v1/tasks/${task.id}/run`, { input_file_ids: [id] });
  const done = await admin.waitForExecution(run.body.data.id);
  expect(done).toMatchObject({ status: 'failed', error: { code: 'input_file_unavailable' } });
  expect(done.error.message).toContain(id);
});
