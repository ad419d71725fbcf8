import type { AttributeValue, Attributes, HrTime } from '@opentelemetry/api';
import { ProtoWriter } from './proto-writer.js';

/**
 * The messages of opentelemetry-proto's common/v1/common.proto that spans carry (`KeyValue`,
 * `AnyValue`) and its fixed64 times, written as `@opentelemetry/otlp-transformer` writes them
 * (otlp-trace-encoding.ts says why, its spec compares the bytes).
 */

const INT64_MIN = -(2 ** 63);
const INT64_END = 2 ** 63;

/** `[seconds, nanoseconds]` as fixed64 nanoseconds, exactly: the seconds split so no product passes 2^53. */
export function writeTime(w: ProtoWriter, [seconds, nanos]: HrTime): void {
  const low16 = (seconds % 0x10000) * 1e9;
  const high = Math.floor(seconds / 0x10000) * 1e9;
  const low = (low16 % 0x100000000) + (high % 0x10000) * 0x10000 + nanos;
  w.fixed64(
    low % 0x100000000,
    Math.floor(low16 / 0x100000000) + Math.floor(high / 0x10000) + Math.floor(low / 0x100000000),
  );
}

export function writeAttributes(w: ProtoWriter, attributes: Attributes | undefined, field: number): void {
  if (!attributes) return;
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    w.tag(field, 2);
    writeKeyValue(w, key, attributes[key]);
  }
}

/**
 * A span's attributes are mostly the same pairs request after request (the method, the tool, the
 * transport, the protocol's version), and their keys always are: written char by char, a key and
 * its value took ~1 500 instructions in the app (bench/RESULTS.md, issue 32, thirty-second pass).
 * So an attribute key keeps its encoded start, and a short primitive value of it the whole
 * `KeyValue` message, written again as one copy. Bounded: so many keys, so many values a key (the
 * first met), messages so long: ~600 kB of encoded bytes at most, ~2 MB with V8's objects. A key
 * whose values keep changing (ids, ports) keeps its first few and writes the others anew. A memo
 * has no state to flip (a "full" flag did): V8 then dropped the code that read it.
 */
const MEMO_KEYS = 256;
const MEMO_KEY_CHARS = 100;
const MEMO_VALUES = 16;
const MEMO_VALUE_CHARS = 64;
const MEMO_MESSAGE_BYTES = 128;

type Memoable = string | number | boolean;

interface KeyMemo {
  /** The `key` field and the `value` field's tag. */
  readonly head: Uint8Array;
  /** Whole `KeyValue` messages, their length first, by value: the first `MEMO_VALUES` short ones. */
  readonly values: Map<Memoable, Uint8Array>;
}

const keyMemos = new Map<string, KeyMemo>();

function writeKeyValue(w: ProtoWriter, key: string, value: unknown): void {
  const memo = keyMemos.get(key) ?? memoOf(key);
  const memoable = memo !== undefined && isMemoable(value);
  if (memoable) {
    const known = memo.values.get(value);
    if (known) return w.copy(known);
  }
  const at = w.open();
  if (memo) w.copy(memo.head);
  else writeHead(w, key);
  const v = w.open();
  writeAnyValue(w, value);
  w.close(v);
  w.close(at);
  // Closed, the message is whole from `at`, its length first. Kept as a copy: the writer's chunk
  // is handed on with the span, and the close of an enclosing message (an event, a link) may
  // still move these bytes.
  if (memoable && w.pos - at <= MEMO_MESSAGE_BYTES && memo.values.size < MEMO_VALUES)
    memo.values.set(ownCopy(value), new Uint8Array(w.buf.subarray(at, w.pos)));
}

/** `KeyValue`'s key field and its value field's tag. */
function writeHead(w: ProtoWriter, key: string): void {
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
}

/**
 * A value kept by its own bytes: a short string, a boolean, a number but NaN (a NaN's bits may
 * differ from those of the first one kept, and the SDK's serializer writes them as they are).
 */
const isMemoable = (value: unknown): value is Memoable =>
  typeof value === 'string'
    ? value.length <= MEMO_VALUE_CHARS
    : typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));

/**
 * A string of its own to keep: a value may be a slice of a much larger string, which a kept slice
 * would keep alive (Express's `req.path` is one of `req.url`, query string included).
 */
const ownCopy = (value: Memoable): Memoable =>
  typeof value === 'string' ? Buffer.from(value, 'utf8').toString('utf8') : value;

/** A key's memo, made on its first write while there is room, its head written once. */
function memoOf(key: string): KeyMemo | undefined {
  if (keyMemos.size >= MEMO_KEYS || key.length > MEMO_KEY_CHARS) return undefined;
  const scratch = new ProtoWriter(3 * MEMO_KEY_CHARS + 8);
  writeHead(scratch, key);
  const memo: KeyMemo = { head: new Uint8Array(scratch.buf.subarray(0, scratch.pos)), values: new Map() };
  keyMemos.set(key, memo);
  return memo;
}

/** An attribute value as `AnyValue`; a value of no AnyValue kind writes nothing, as the SDK's serializer. */
function writeAnyValue(w: ProtoWriter, value: AttributeValue | unknown): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, 2);
      w.string(value);
      return;
    case 'boolean':
      w.tag(2, 0);
      w.varint(value ? 1 : 0);
      return;
    case 'number':
      if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_END) {
        w.tag(3, 0);
        w.int64(value);
      } else {
        w.tag(4, 1);
        w.double(value);
      }
      return;
    case 'object':
      if (value === null) return;
      if (value instanceof Uint8Array) {
        w.tag(7, 2);
        w.bytes(value);
      } else if (Array.isArray(value)) {
        w.tag(5, 2);
        const at = w.open();
        for (const item of value) {
          w.tag(1, 2);
          const v = w.open();
          writeAnyValue(w, item);
          w.close(v);
        }
        w.close(at);
      } else {
        w.tag(6, 2);
        const at = w.open();
        writeAttributes(w, value as Attributes, 1);
        w.close(at);
      }
  }
}
