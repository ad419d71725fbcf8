import * as cv from 'class-validator';

type Schema = Record<string, unknown>;
/** What a converter reads of class-validator's ValidationMetadata. */
interface ValidationMetadata {
  readonly constraints: unknown[];
}
type Converter = Schema | ((meta: ValidationMetadata) => Schema | undefined);

/*
 * The JSON Schema of each class-validator decorator, where class-validator-jsonschema's default
 * says something the validator does not (issue 28, point 5): an unanchored date pattern that
 * refused `2026-12-01` and took `xx2026-…Zyy`, formats stricter than the validator (email, URL,
 * hostname, IP), formats no JSON Schema validator knows, `IsNotEmpty` as "a string", a literal
 * `Contains` seed read as a regex, `IsBooleanString`, `IsNumberString`, `IsHexColor` and
 * `IsHexadecimal` narrower than what they accept. Where the validator's rule cannot be written
 * exactly, the schema here is looser, never stricter; docs/schemas.md lists those.
 * Each entry is pinned by src/discovery/validator-schemas.spec.ts (values the validator accepts
 * and refuses, checked against the schema with Ajv).
 */
const STRING = { type: 'string' };
/** class-transformer makes a Date of any JSON value (`new Date(true)` is valid): nothing can be refused up front. */
const DATE_LIKE = {};

/** ISO 8601 as validator.js reads it (dates, week and ordinal dates, times, offsets): its characters, anchored. */
const ISO_8601_LOOSE = '^[+-]?\\d{4}[-+0-9WTZz:.,\\s]*$';

function escapeRegExp(text: string): string {
  // Only the syntax characters: with the `u` flag JSON Schema validators use, other escapes are errors.
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

interface UrlOptions {
  readonly require_protocol?: boolean;
  readonly require_valid_protocol?: boolean;
  readonly protocols?: readonly string[];
}

/** isURL refuses whitespace, `<` and `>`; with `require_protocol` the URL starts with one of `protocols` (any case) and `://`. */
function urlPattern(options: UrlOptions | undefined): string {
  if (!options?.require_protocol || options.require_valid_protocol === false) return '^[^\\s<>]+$';
  const protocols = options.protocols ?? ['http', 'https', 'ftp'];
  const anyCase = (word: string) =>
    [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegExp(c))).join('');
  return `^(${protocols.map(anyCase).join('|')})://[^\\s<>]+$`;
}

/** A RegExp as a JSON Schema `pattern`, when the pattern means the same (no flags that change it, valid with `u`). */
function patternOf(regexp: RegExp): Schema {
  if (/[imsy]/.test(regexp.flags)) return STRING;
  try {
    new RegExp(regexp.source, 'u');
  } catch {
    return STRING;
  }
  return { type: 'string', pattern: regexp.source };
}

export const VALIDATOR_SCHEMAS: Readonly<Record<string, Converter>> = {
  [cv.IS_DATE_STRING]: { type: 'string', pattern: ISO_8601_LOOSE },
  [cv.IS_ISO8601]: { type: 'string', pattern: ISO_8601_LOOSE },
  [cv.IS_DATE]: DATE_LIKE,
  [cv.MIN_DATE]: DATE_LIKE,
  [cv.MAX_DATE]: DATE_LIKE,
  [cv.IS_NOT_EMPTY]: { not: { enum: ['', null] } },
  [cv.IS_EMPTY]: { enum: ['', null] },
  [cv.EQUALS]: (meta) => ({ const: meta.constraints[0] as unknown }),
  [cv.NOT_EQUALS]: (meta) => ({ not: { const: meta.constraints[0] as unknown } }),
  // Object.values of a numeric enum holds its names too, which isEnum accepts.
  [cv.IS_ENUM]: (meta) => {
    const values: unknown[] = Object.values(meta.constraints[0] as object);
    const types = new Set(values.map((v) => typeof v));
    const type = types.size === 1 && (types.has('string') || types.has('number')) ? [...types][0] : undefined;
    return type ? { type, enum: values } : { enum: values };
  },
  [cv.IS_BOOLEAN_STRING]: { type: 'string', enum: ['true', 'false', '1', '0'] },
  [cv.IS_NUMBER_STRING]: { type: 'string', pattern: '^[+-]?([0-9]*\\.)?[0-9]+$' },
  [cv.IS_HEX_COLOR]: { type: 'string', pattern: '^#?([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' },
  [cv.IS_HEXADECIMAL]: { type: 'string', pattern: '^(0[xXhH])?[0-9a-fA-F]+$' },
  [cv.IS_MONGO_ID]: { type: 'string', pattern: '^([0-9a-fA-F]{24}|0[xXhH][0-9a-fA-F]{22})$' },
  [cv.CONTAINS]: (meta) => {
    const seed = meta.constraints[0];
    return typeof seed === 'string' ? { type: 'string', pattern: escapeRegExp(seed) } : STRING;
  },
  [cv.NOT_CONTAINS]: (meta) => {
    const seed = meta.constraints[0];
    return typeof seed === 'string' ? { type: 'string', not: { pattern: escapeRegExp(seed) } } : STRING;
  },
  [cv.MATCHES]: (meta) => {
    const [pattern, modifiers] = meta.constraints as [RegExp | string, string | undefined];
    return patternOf(typeof pattern === 'string' ? new RegExp(pattern, modifiers) : pattern);
  },
  [cv.IS_DIVISIBLE_BY]: (meta) => {
    const by = meta.constraints[0] as number;
    return Number.isInteger(by) && by > 0 ? { type: 'number', multipleOf: by } : { type: 'number' };
  },
  // Looser than the validator: what JSON Schema's formats would refuse although the validator takes it
  // (internationalised addresses and hosts, URLs without a scheme, IPv6 zones) must not be refused.
  [cv.IS_EMAIL]: { type: 'string', pattern: '^[\\s\\S]+@[^@\\s]+\\.[^@\\s]+$' },
  [cv.IS_URL]: (meta) => ({ type: 'string', pattern: urlPattern(meta.constraints[0] as UrlOptions | undefined) }),
  [cv.IS_FQDN]: STRING,
  [cv.IS_IP]: (meta) => {
    const version = meta.constraints[0];
    return version === 4 || version === '4' ? { type: 'string', format: 'ipv4' } : STRING;
  },
  [cv.IS_SURROGATE_PAIR]: STRING,
  // Formats that no JSON Schema validator knows: said as content, or not at all.
  [cv.IS_BASE64]: { type: 'string', contentEncoding: 'base64' },
  [cv.IS_JSON]: { type: 'string', contentMediaType: 'application/json' },
  [cv.IS_CREDIT_CARD]: STRING,
  [cv.IS_CURRENCY]: STRING,
  [cv.IS_ISBN]: STRING,
  [cv.IS_ISIN]: STRING,
  [cv.IS_MOBILE_PHONE]: STRING,
  // Distinct by identity for the validator, by value for JSON Schema: two equal objects pass one, not the other.
  [cv.ARRAY_UNIQUE]: { type: 'array', items: {} },
};
