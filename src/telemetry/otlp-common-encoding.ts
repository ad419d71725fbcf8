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
 * first met), messages so long: ~600 kB at most in all. A key whose values keep changing (ids,
 * ports) keeps its first few and writes the others anew. Nothing in a memo changes once set: a
 * field changing state made V8 drop the code that read it (`writeAttributes`, when the ports ran out).
 */
const MEMO_KEYS = 256;
const MEMO_KEY_CHARS = 100;
const MEMO_VALUES = 16;
const MEMO_VALUE_CHARS = 64;
const MEMO_MESSAGE_BYTES = 128;

interface KeyMemo {
  /** The `key` field and the `value` field's tag. */
  readonly head: Uint8Array;
  /** Whole `KeyValue` messages, their length first, by value: the first `MEMO_VALUES` short ones. */
  readonly values: Map<AttributeValue, Uint8Array>;
}

const keyMemos = new Map<string, KeyMemo>();

function writeKeyValue(w: ProtoWriter, key: string, value: unknown): void {
  const memo = keyMemos.get(key) ?? memoOf(key);
  if (!memo) return writeKeyValueAnew(w, key, value);
  const memoable =
    typeof value === 'string'
      ? value.length <= MEMO_VALUE_CHARS
      : typeof value === 'number' || typeof value === 'boolean';
  if (memoable) {
    const known = memo.values.get(value as AttributeValue);
    if (known) return w.copy(known);
  }
  const at = w.open();
  w.copy(memo.head);
  const v = w.open();
  writeAnyValue(w, value);
  w.close(v);
  w.close(at);
  // Closed, the message is whole from `at`, its length first. Kept as a copy: the writer's chunk
  // is handed on with the span.
  if (memoable && w.pos - at <= MEMO_MESSAGE_BYTES && memo.values.size < MEMO_VALUES)
    memo.values.set(value as AttributeValue, new Uint8Array(w.buf.subarray(at, w.pos)));
}

function writeKeyValueAnew(w: ProtoWriter, key: string, value: unknown): void {
  const at = w.open();
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
  const v = w.open();
  writeAnyValue(w, value);
  w.close(v);
  w.close(at);
}

/** A key's memo, made on its first write while there is room: its head written once, as `writeKeyValueAnew` writes it. */
function memoOf(key: string): KeyMemo | undefined {
  if (keyMemos.size >= MEMO_KEYS || key.length > MEMO_KEY_CHARS) return undefined;
  const scratch = new ProtoWriter(3 * MEMO_KEY_CHARS + 8);
  scratch.tag(1, 2);
  scratch.string(key);
  scratch.tag(2, 2);
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
