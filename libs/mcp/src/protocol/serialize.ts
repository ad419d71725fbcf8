import { type GzipPrefix, gzipPrefix, gzipSuffix } from './gzip-splice.js';
import type { JsonRpcId } from './rejection.js';

/** A JSON fragment serialized once (e.g. a cached tools/list page) and spliced in as is. */
export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * Compact one-line JSON-RPC success body. Top-level result fields holding `RawJson` are spliced in
 * without re-serialization, which is how cached list pages stay off the request path. A plain
 * result with none (a tool's usual answer) is one `JSON.stringify`, the same text as field by
 * field in fewer calls (bench/RESULTS.md, issue 32).
 */
export function serializeSuccess(id: JsonRpcId, result: Record<string, unknown>): string {
  const head = '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":';
  return (wholeAtOnce(result) ? head + JSON.stringify(result) : head + fieldByField(result)) + '}';
}

/**
 * Whether JSON.stringify writes `result` as fieldByField does: a plain object (no inherited
 * fields or toJSON for the two to see differently) with no RawJson to splice, and no function or
 * symbol, which fieldByField would write as `undefined` where stringify leaves the field out.
 */
function wholeAtOnce(result: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(result) !== Object.prototype) return false;
  for (const key in result) {
    const value = result[key];
    if (value instanceof RawJson || typeof value === 'function' || typeof value === 'symbol') return false;
  }
  return true;
}

function fieldByField(result: Record<string, unknown>): string {
  let out = '{';
  let first = true;
  for (const key in result) {
    const value = result[key];
    if (value === undefined) continue;
    out +=
      (first ? '' : ',') + JSON.stringify(key) + ':' + (value instanceof RawJson ? value.json : JSON.stringify(value));
    first = false;
  }
  return out + '}';
}

const ENCODED = Symbol('encoded');

/**
 * Marks a result that many requests share as is (a list page for one visibility class): once
 * adapted to an era, everything after the request id is encoded to bytes once and reused, so such
 * an answer costs a copy of its bytes, not a serialization and a UTF-8 encoding per request.
 * Non-enumerable: the era adapters' spreads do not carry the mark over.
 */
export function sharedResult<T extends object>(result: T): T {
  Object.defineProperty(result, ENCODED, { value: new Map<string, EncodedAnswer>(), enumerable: false });
  return result;
}

/** The bytes cache of a result marked by `sharedResult`, by era; undefined for any other result. */
export function encodedOf(result: object): Map<string, EncodedAnswer> | undefined {
  return (result as { [ENCODED]?: Map<string, EncodedAnswer> })[ENCODED];
}

/**
 * Shared answers at most this long go out uncompressed: the gzip framing adds ~30 bytes, and on
 * a small page the saving does not pay for the client's inflate.
 */
export const GZIP_MIN_BYTES = 1024;

/**
 * One shared result's answer in one era, as bytes: the identity body's `tail` (after the id), and
 * the compressed prefix of the gzip body, made the first time a client accepts gzip. Both are as
 * many as pages × visibility classes × eras.
 */
export class EncodedAnswer {
  private gzipped?: GzipPrefix;

  constructor(readonly tail: Buffer) {}

  /** `successTail(result)` of the era-adapted result. */
  static of(result: Record<string, unknown>): EncodedAnswer {
    return new EncodedAnswer(successTail(result));
  }

  get compressible(): boolean {
    return this.tail.length > GZIP_MIN_BYTES;
  }

  /** `serializeSuccess(id, result)`, in two parts. */
  identity(id: JsonRpcId): readonly Buffer[] {
    return [successHead(id), this.tail];
  }

  /**
   * The same answer gzip-coded, with the id moved last — `{"jsonrpc":"2.0","result":{…},"id":<id>}`
   * (JSON-RPC 2.0 §4 names the members, not their order) — so everything before it is one
   * constant prefix compressed once, and a request adds its id uncompressed (gzip-splice.ts).
   */
  gzip(id: JsonRpcId): readonly Buffer[] {
    // The tail is `,"result":{…}}`: without its last `}` it continues `{"jsonrpc":"2.0"` up to the id.
    this.gzipped ??= gzipPrefix(Buffer.concat([JSONRPC_OPEN, this.tail.subarray(0, this.tail.length - 1)]));
    return [this.gzipped.head, gzipSuffix(this.gzipped, Buffer.from(',"id":' + JSON.stringify(id) + '}'))];
  }
}

/**
 * `serializeSuccess` in two parts: the head up to the id (per request) and the pre-encoded rest.
 * `tail` is the bytes of `serializeSuccess(0, result)` after its `"id":0`.
 */
export function successTail(result: Record<string, unknown>): Buffer {
  return Buffer.from(serializeSuccess(0, result).slice(SUCCESS_HEAD.length + 1));
}

const JSONRPC_OPEN = Buffer.from('{"jsonrpc":"2.0"');
const SUCCESS_HEAD = '{"jsonrpc":"2.0","id":';

export function successHead(id: JsonRpcId): Buffer {
  return Buffer.from(SUCCESS_HEAD + JSON.stringify(id));
}
