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
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + (value instanceof RawJson ? value.json : JSON.stringify(value));
    first = false;
  }
  return out + '}}';
}
