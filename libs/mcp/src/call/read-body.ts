import type { Request } from 'express';

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * The body at once, when the HTTP parser already buffered all the bytes its Content-Length declares
 * and nothing has read them yet — the usual case for a small POST, which arrives in one TCP segment.
 * The same text and the same limit as readBody, without its four listeners and its promise
 * (bench/RESULTS.md, issue 32). Undefined when some of it has yet to arrive: readBody waits for it.
 */
export function readCompleteBody(req: Request, limit: number): BodyRead | undefined {
  const declared = req.headers['content-length'];
  if (declared === undefined || req.headers['transfer-encoding'] !== undefined) return undefined;
  if (req.readableEnded || req.readableFlowing === true) return undefined;
  const length = Number(declared);
  if (!(req.readableLength >= length)) return undefined;
  if (length > limit) return { ok: false, reason: 'too_large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) {
    chunks.push(chunk);
    size += chunk.length;
  }
  // Flowing from here, the stream still ends ('end', readableEnded) once the parser has seen the
  // message's end, as it does for a body read by readBody.
  req.resume();
  const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
  return { ok: true, text };
}

/**
 * Reads the raw body up to `limit` bytes. Past the limit it stops reading at once (rung 6): the
 * caller answers 413 and the connection is closed, so a chunked or lying upload cannot fill memory.
 */
export function readBody(req: Request, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyRead): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') });
    const onError = (): void => finish({ ok: false, reason: 'aborted' });
    const onAborted = (): void => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
