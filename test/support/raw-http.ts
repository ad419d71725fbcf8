import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request whose body is written by hand: a declared Content-Length with no body, or a chunked
 * upload larger than the limit. Resolves with whatever the server answered, even if it closed
 * the connection while the body was still being written.
 */
export function rawPost(
  url: string,
  headers: Record<string, string>,
  write: (chunk: (data: Buffer | string) => boolean, end: () => void) => void,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE/ECONNRESET while writing means the server stopped reading: the response event decides.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.flushHeaders();
    write(
      (data) => req.write(data),
      () => req.end(),
    );
  });
}
