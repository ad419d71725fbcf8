import type { AttributeValue, Attributes, HrTime } from '@opentelemetry/api';
import type { ProtoWriter } from './proto-writer.js';

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

function writeKeyValue(w: ProtoWriter, key: string, value: unknown): void {
  const at = w.open();
  w.tag(1, 2);
  w.string(key);
  w.tag(2, 2);
  const v = w.open();
  writeAnyValue(w, value);
  w.close(v);
  w.close(at);
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
