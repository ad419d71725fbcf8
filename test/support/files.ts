import { createHash } from 'node:crypto';
import request from 'supertest';
import type { KaduClient } from './kadu-client.js';
import type { KaduTestApp } from './kadu-app.js';

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The path and query of a presigned URL, to send it to the in-process server. */
export const local = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The whole upload dance a client performs: create, PUT the bytes, confirm. Returns the file id. */
export async function uploadFile(kadu: KaduTestApp, client: KaduClient, name: string, content: string, contentType = 'text/csv'): Promise<string> {
  const bytes = Buffer.from(content);
  const created = await client.rest('post', '/api/v1/files', { name, content_type: contentType, size: bytes.length, sha256: sha256(bytes) });
  if (created.status !== 201) throw new Error(`create file: ${created.status} ${created.text}`);
  const put = await request(kadu.server).put(local(created.body.data.upload_url)).set('Content-Type', contentType).send(bytes);
  if (put.status !== 204) throw new Error(`upload: ${put.status} ${put.text}`);
  const confirmed = await client.rest('post', `/api/v1/files/${created.body.data.file.id}/confirm`);
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.text}`);
  return created.body.data.file.id;
}

/** Follows a download URL the way a client would and returns the bytes. */
export async function download(kadu: KaduTestApp, url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await request(kadu.server).get(local(url)).buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  return { status: res.status, type: String(res.headers['content-type']), text: (res.body as Buffer).toString('utf8') };
}
