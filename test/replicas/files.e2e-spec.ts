import { createHash } from 'node:crypto';
import { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 14, files across replicas with separate data folders: the bytes live in the shared bucket,
 * so any replica confirms, serves and reads any upload — and a file whose bytes are gone answers
 * 410 on every replica without taking any of them down.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;
let client: RemoteClient;

shared.describe('replicas: files', () => {
  beforeAll(async () => {
    s3 = await startS3Server();
    set = await ReplicaSet.start({ count: 3, s3 });
    client = new RemoteClient(set.url, await set.token(), await set.token({ audience: 'api' }));
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
  });

  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const on = (i: number) => client.at(set.replicas[i]!.url);

  /** Create on one replica, PUT to the bucket, confirm on the next, as a client would. */
  async function upload(name: string, text: string, createdOn: number): Promise<string> {
    const bytes = Buffer.from(text);
    const created = await on(createdOn).rest('post', '/api/v1/files', {
      name,
      content_type: 'text/csv',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(created.status).toBe(201);
    const target = new URL(created.body.data.upload_url);
    expect(target.origin).toBe(s3.endpoint); // the bytes never pass through a replica
    const put = await fetch(target, { method: 'PUT', headers: { 'Content-Type': 'text/csv' }, body: bytes });
    expect(put.status).toBe(200);
    const confirmed = await on((createdOn + 1) % 3).rest('post', `/api/v1/files/${created.body.data.file.id}/confirm`);
    expect(confirmed.body.data).toMatchObject({ status: 'ready', sha256: sha256(bytes) });
    return created.body.data.file.id;
  }

  it('create on one replica, confirm on a second, download URL from a third: every replica serves every file', async () => {
    const files = [
      await upload('a.csv', 'n\n1\n', 0),
      await upload('b.csv', 'n\n2\n', 1),
      await upload('c.csv', 'n\n3\n', 2),
    ];
    let served = 0;
    for (const [index, id] of files.entries()) {
      for (let i = 0; i < 3; i++) {
        const link = await on(i).rest('post', `/api/v1/files/${id}/download_url`);
        expect(link.status).toBe(200);
        const res = await fetch(link.body.data.url);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(`n\n${index + 1}\n`);
        served++;
      }
    }
    expect(served).toBe(9);
  });

  it('a csv_summary run reads an input uploaded through other replicas and its output is downloadable anywhere', async () => {
    const input = await upload('sales.csv', 'region,amount\nnorth,10\nsouth,5.5\n', 1);
    const task = (await on(2).rest('post', '/api/v1/tasks', { name: 'sum', kind: 'csv_summary', cost_cap: 20 })).body
      .data;
    const run = await on(0).rest('post', `/api/v1/tasks/${task.id}/run`, { input_file_ids: [input] });
    const done = await client.waitForExecution(run.body.data.id);
    expect(done).toMatchObject({ status: 'succeeded', output: { rows: 2, totals: { amount: 15.5 } } });
    for (let i = 0; i < 3; i++) {
      const link = await on(i).rest('post', `/api/v1/files/${done.output_file_ids[0]}/download_url`);
      expect(JSON.parse(await (await fetch(link.body.data.url)).text())).toMatchObject({ rows: 2 });
    }
  });

  it('bytes deleted under a ready file: 410 on every replica, every replica still up', async () => {
    const id = await upload('doomed.csv', 'n\n9\n', 2);
    const link = await on(0).rest('post', `/api/v1/files/${id}/download_url`);
    await s3.deleteObject(new URL(link.body.data.url).pathname.slice(`/${s3.bucket}/`.length));
    for (let i = 0; i < 3; i++) {
      const gone = await on(i).rest('post', `/api/v1/files/${id}/download_url`);
      expect(gone.status).toBe(410);
      expect(gone.body.errors[0].code).toBe('file_gone');
    }
    expect(set.replicas.every((r) => r.alive)).toBe(true);
    for (let i = 0; i < 3; i++) expect((await on(i).rest('get', '/api/v1/me')).status).toBe(200);
  });
});
