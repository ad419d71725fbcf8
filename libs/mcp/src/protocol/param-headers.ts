import { HEADER_PARAM_PREFIX } from './constants.js';
import { decodeHeaderValue } from './header-value.js';
import { isPlainObject, type JsonRpcMessage } from './jsonrpc.js';
import { headerMismatch, type Rejection } from './rejection.js';
import type { HeaderReader } from './standard-headers.js';

/** A tool argument mirrored into an `Mcp-Param-<name>` header (2026-07-28 streamable-http §Custom Headers). */
export interface ParamHeader {
  readonly property: string;
  /** Lower-case header name, e.g. `mcp-param-region`. */
  readonly header: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The `x-mcp-header` annotations of a tool's top-level properties. Only string, integer and boolean
 * properties may carry one; names must be tokens, unique case-insensitively. Anything else is a
 * tool definition error, refused at bootstrap.
 */
export function paramHeadersOf(schema: Readonly<Record<string, unknown>>): ParamHeader[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const headers: ParamHeader[] = [];
  for (const [property, definition] of Object.entries(properties)) {
    if (!isPlainObject(definition) || definition['x-mcp-header'] === undefined) continue;
    const name = definition['x-mcp-header'];
    const type = definition.type;
    if (typeof name !== 'string' || !TOKEN.test(name))
      throw new Error(`x-mcp-header of '${property}' must be a header token`);
    if (type !== 'string' && type !== 'integer' && type !== 'boolean')
      throw new Error(`x-mcp-header is only allowed on string, integer or boolean properties ('${property}')`);
    const header = `${HEADER_PARAM_PREFIX}${name.toLowerCase()}`;
    if (headers.some((h) => h.header === header)) throw new Error(`x-mcp-header '${name}' is used twice`);
    headers.push({ property, header, type });
  }
  return headers;
}

/**
 * A value present in the arguments needs its header, equal after decoding (integers compared as
 * numbers); an absent or null value expects no header. Any disagreement is 400 `-32020`.
 */
export function checkParamHeaders(
  message: JsonRpcMessage,
  params: readonly ParamHeader[],
  header: HeaderReader,
): Rejection | undefined {
  const id = message.id ?? null;
  const args = isPlainObject(message.params?.arguments) ? message.params.arguments : {};
  for (const p of params) {
    const value = args[p.property];
    if (value === undefined || value === null) continue;
    const raw = header(p.header);
    const shown = `Mcp-Param-${p.header.slice(HEADER_PARAM_PREFIX.length)}`;
    if (raw === undefined)
      return headerMismatch(id, `${shown} header is required when '${p.property}' is given`, 'header_missing');
    const decoded = decodeHeaderValue(raw);
    if (!decoded.ok) return headerMismatch(id, `${shown} header is malformed: ${decoded.reason}`);
    const agrees =
      p.type === 'integer'
        ? decoded.value.trim() !== '' && Number(decoded.value) === value
        : p.type === 'boolean'
          ? decoded.value === String(value)
          : decoded.value === value;
    if (!agrees)
      return headerMismatch(
        id,
        `${shown} header '${decoded.value}' does not match argument '${p.property}' (${JSON.stringify(value)})`,
      );
  }
  return undefined;
}
