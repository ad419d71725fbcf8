import type { Request } from 'express';

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' };

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
