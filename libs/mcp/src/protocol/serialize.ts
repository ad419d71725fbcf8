import type { JsonRpcId } from './rejection.js';

/** A JSON fragment serialized once (e.g. a cached tools/list page) and spliced in as is. */
export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * Compact one-line JSON-RPC success body. Top-level result fields holding `RawJson` are spliced in
 * without re-serialization, which is how cached list pages stay off the request path.
 */
export function serializeSuccess(id: JsonRpcId, result: Record<string, unknown>): string {
  let out = '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{';
  let first = true;
  for (const key in result) {
    const value = result[key];
    if (value === undefined) continue;
    out +=
      (first ? '' : ',') + JSON.stringify(key) + ':' + (value instanceof RawJson ? value.json : JSON.stringify(value));
    first = false;
  }
  return out + '}}';
}

const ENCODED = Symbol('encoded');

/**
 * Marks a result that many requests share as is (a list page for one visibility class): once
 * adapted to an era, everything after the request id is encoded to bytes once and reused, so such
 * an answer costs a copy of its bytes, not a serialization and a UTF-8 encoding per request.
 * Non-enumerable: the era adapters' spreads do not carry the mark over.
 */
export function sharedResult<T extends object>(result: T): T {
  Object.defineProperty(result, ENCODED, { value: new Map<string, Buffer>(), enumerable: false });
  return result;
}

/** The bytes cache of a result marked by `sharedResult`, by era; undefined for any other result. */
export function encodedOf(result: object): Map<string, Buffer> | undefined {
  return (result as { [ENCODED]?: Map<string, Buffer> })[ENCODED];
}

/**
 * `serializeSuccess` in two parts: the head up to the id (per request) and the pre-encoded rest.
 * `tail` is the bytes of `serializeSuccess(0, result)` after its `"id":0`.
 */
export function successTail(result: Record<string, unknown>): Buffer {
  return Buffer.from(serializeSuccess(0, result).slice(SUCCESS_HEAD.length + 1));
}

const SUCCESS_HEAD = '{"jsonrpc":"2.0","id":';

export function successHead(id: JsonRpcId): Buffer {
  return Buffer.from(SUCCESS_HEAD + JSON.stringify(id));
}
