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

/** Whether a presigned URL is the app's own (embedded store) rather than an object store's. */
const isApps = (kadu: KaduTestApp, url: string): boolean => url.startsWith(`${kadu.config.publicBaseUrl}/`);

/** PUTs bytes to a presigned URL: the in-process app's route, or the object store over the network. */
export async function put(
  kadu: KaduTestApp,
  url: string,
  bytes: Buffer,
  contentType: string,
): Promise<{ status: number; text: string }> {
  if (isApps(kadu, url)) {
    const res = await request(kadu.server).put(local(url)).set('Content-Type', contentType).send(bytes);
    return { status: res.status, text: res.text };
  }
  const res = await fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body: bytes });
  return { status: res.status, text: await res.text() };
}

/** The whole upload dance a client performs: create, PUT the bytes, confirm. Returns the file id. */
export async function uploadFile(
  kadu: KaduTestApp,
  client: KaduClient,
  name: string,
  content: string,
  contentType = 'text/csv',
): Promise<string> {
  const bytes = Buffer.from(content);
  const created = await client.rest('post', '/api/v1/files', {
    name,
    content_type: contentType,
    size: bytes.length,
    sha256: sha256(bytes),
  });
  if (created.status !== 201) throw new Error(`create file: ${created.status} ${created.text}`);
  const uploaded = await put(kadu, created.body.data.upload_url, bytes, contentType);
  if (uploaded.status < 200 || uploaded.status > 299) throw new Error(`upload: ${uploaded.status} ${uploaded.text}`);
  const confirmed = await client.rest('post', `/api/v1/files/${created.body.data.file.id}/confirm`);
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${confirmed.text}`);
  return created.body.data.file.id;
}

/** Follows a download URL the way a client would and returns the bytes. */
export async function download(
  kadu: KaduTestApp,
  url: string,
): Promise<{ status: number; type: string; text: string }> {
  if (!isApps(kadu, url)) {
    const res = await fetch(url);
    return { status: res.status, type: String(res.headers.get('content-type')), text: await res.text() };
  }
  const res = await request(kadu.server)
    .get(local(url))
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  return { status: res.status, type: String(res.headers['content-type']), text: (res.body as Buffer).toString('utf8') };
}
