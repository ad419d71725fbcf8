import type { IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { checkHost, pinnedLookup, type ResolveAll, systemResolveAll } from '../common/address-policy.js';

/** The largest document the development authorization server reads (sector_identifier_uri, jwks_uri). */
export const MAX_DOCUMENT_BYTES = 16 * 1024;
/** A Client ID Metadata Document is a few hundred bytes; oidc-provider's own default cap. */
export const MAX_CLIENT_METADATA_DOCUMENT_BYTES = 5 * 1024;
/** Everything one fetch may take: resolution, connection, TLS, the answer's head and body, every redirect. */
export const DOCUMENT_DEADLINE_MS = 2000;
const MAX_REDIRECTS = 3;

export interface DocumentFetchOptions {
  /** Loopback addresses may be fetched (OAUTH_DEV_CIMD_ALLOW_LOOPBACK: tests only); private ones never. */
  allowLoopback: boolean;
  maxBytes?: number;
  deadlineMs?: number;
  resolveAll?: ResolveAll;
  /** TLS options of its connections (a test's own certificate authority). */
  tls?: Pick<RequestOptions, 'ca'>;
  /** Told of every URL refused before any connection, and why. */
  onRefused?: (url: string, reason: string) => void;
}

/** A document that is not fetched, or not read to its end: the address, its size or its time. */
export class DocumentRefused extends Error {}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * oidc-provider's `fetch` (its hook for every outgoing request: Client ID Metadata Documents,
 * `sector_identifier_uri`, `jwks_uri`). Each hop — the first URL and every redirect — is https,
 * resolved once and classified (common/address-policy.ts) before any connection is opened, and
 * the connection goes to exactly the address classified, so a refused address never receives a
 * packet (not even a TLS ClientHello) and a second DNS answer cannot differ. The body is read up
 * to `maxBytes` (the Content-Length is checked first) within one deadline for the whole fetch;
 * the provider's own per-purpose limits (`fetchResponseBodyLimits`) then apply to what it gets.
 */
export function documentFetch(options: DocumentFetchOptions): Fetch {
  const maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  const deadlineMs = options.deadlineMs ?? DOCUMENT_DEADLINE_MS;
  const resolveAll = options.resolveAll ?? systemResolveAll;
  return async (input, init = {}) => {
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const headers = Object.fromEntries(new Headers(init.headers));
    let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    for (let hop = 0; ; hop++) {
      const target = await untilAborted(signal, checkUrl(url, options.allowLoopback, resolveAll), deadlineMs);
      if (!target.ok) {
        options.onRefused?.(url.href.slice(0, 300), target.reason);
        throw new DocumentRefused(`${url.origin} was not fetched: ${target.reason}`);
      }
      const answer = await get(url, target, {
        method: init.method ?? 'GET',
        headers,
        signal,
        maxBytes,
        tls: options.tls,
      });
      const location = answer.headers.get('location');
      if (!REDIRECTS.has(answer.status) || init.redirect === 'manual' || !location) return answer;
      if (init.redirect === 'error') throw new DocumentRefused(`${url.origin} redirected`);
      if (hop >= MAX_REDIRECTS) throw new DocumentRefused(`more than ${MAX_REDIRECTS} redirects from ${url.origin}`);
      url = new URL(location, url);
    }
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function checkUrl(url: URL, allowLoopback: boolean, resolveAll: ResolveAll) {
  if (url.protocol !== 'https:') return { ok: false as const, reason: 'only https documents are fetched' };
  if (url.username || url.password) return { ok: false as const, reason: 'credentials in the URL are not allowed' };
  return checkHost(url.hostname, allowLoopback, resolveAll);
}

interface Get {
  method: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  maxBytes: number;
  tls?: Pick<RequestOptions, 'ca'>;
}

/** One request to the classified address; the answer's body read whole (a redirect's is not read). */
function get(url: URL, target: { address: string; family: 4 | 6 }, how: Get): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const fail = (error: Error): void => {
      req.destroy();
      reject(error);
    };
    const req = httpsRequest(
      url,
      {
        method: how.method,
        headers: how.headers,
        lookup: pinnedLookup(target.address, target.family),
        // A connection of its own: never a pooled one, opened for another resolution.
        agent: false,
        signal: how.signal,
        ...how.tls,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const headers = headersOf(res);
        if (REDIRECTS.has(status) || status === 204 || status === 304 || how.method === 'HEAD') {
          res.destroy();
          return resolve(new Response(null, { status, headers }));
        }
        if (status < 200 || status > 599) return fail(new DocumentRefused(`${url.origin} answered ${status}`));
        const declared = Number(res.headers['content-length']);
        if (declared > how.maxBytes)
          return fail(new DocumentRefused(`${url.origin} sent ${declared} bytes; at most ${how.maxBytes} are read`));
        readCapped(res, how.maxBytes).then(
          (body) => resolve(new Response(body, { status, headers })),
          (error: Error) => fail(error),
        );
      },
    );
    req.on('error', (error) =>
      reject(
        how.signal.aborted
          ? new DocumentRefused(`${url.origin} did not answer in time`, { cause: how.signal.reason })
          : error,
      ),
    );
    req.end();
  });
}

function readCapped(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        reject(new DocumentRefused(`the document is larger than ${maxBytes} bytes`));
        return void res.destroy();
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(new DocumentRefused('the connection closed before the document ended')));
  });
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** The resolution runs in the thread pool and cannot be cancelled: past the deadline, it is not waited for. */
function untilAborted<T>(signal: AbortSignal, work: Promise<T>, deadlineMs: number): Promise<T> {
  if (signal.aborted) return Promise.reject(new DocumentRefused(`not resolved within ${deadlineMs} ms`));
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(new DocumentRefused(`not resolved within ${deadlineMs} ms`));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
