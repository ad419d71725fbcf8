import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The same as `body`, so that `expectRpcError` reads it as it reads supertest's answers. */
  text: string;
}

/**
 * A request whose body is written by hand: a declared Content-Length with no body, or a chunked
 * upload larger than the limit. Resolves with whatever the server answered, even if it closed
 * the connection while the body was still being written.
 */
export function rawPost(
  url: string,
  headers: Record<string, string>,
  write: (chunk: (data: Buffer | string) => Promise<boolean>, end: () => void) => void,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let done = false;
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      const finish = (): void => {
        if (done) return;
        done = true;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, text });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      // The server may close the socket right after its answer: what arrived is the answer.
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // EPIPE/ECONNRESET while writing means the server stopped reading: the response event decides.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET' && !done) reject(error);
    });
    req.on('close', () => setTimeout(() => !done && reject(new Error('closed without a response')), 1000).unref());
    req.flushHeaders();
    write(
      (data) =>
        new Promise<boolean>((ok) => {
          if (req.destroyed || done) return ok(false);
          if (req.write(data)) return ok(true);
          // Wait for the socket to drain, or for the server to answer and close (then forget both).
          const go = (): void => {
            req.off('drain', go);
            req.off('close', go);
            clearTimeout(timer);
            ok(!req.destroyed && !done);
          };
          req.once('drain', go);
          req.once('close', go);
          const timer = setTimeout(go, 200).unref();
        }),
      () => {
        if (!req.destroyed) req.end();
      },
    );
  });
}
