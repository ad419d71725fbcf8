import 'reflect-metadata';
import { Type } from 'class-transformer';
import * as cv from 'class-validator';
import fc from 'fast-check';

/**
 * The decorators of libs/mcp/src/discovery/validator-schemas.spec.ts, each with the values drawn
 * for it and how far its schema agrees with the validator (`exact` or `looser`, docs/schemas.md).
 */
enum Colour {
  Red = 'red',
  Blue = 'blue',
}
enum Level {
  Low = 1,
  High = 2,
}

export type Case = [
  name: string,
  decorator: PropertyDecorator,
  designType: unknown,
  values: fc.Arbitrary<unknown>,
  agreement: 'exact' | 'looser',
];

const any = fc.jsonValue();
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
const isoDate = fc
  .date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') })
  .map((d) => d.toISOString());
const dateStrings = fc.oneof(
  isoDate,
  isoDate.map((s) => s.slice(0, 10)),
  isoDate.map((s) => s.replace('.000Z', 'Z')),
  isoDate.map((s) => s.replace('T', ' ').replace('Z', '+02:00')),
  isoDate.map((s) => s.slice(0, 7)),
  isoDate.map((s) => `xx${s}yy`),
  isoDate.map((s) => s.replace(/-/g, '')),
  fc.constantFrom('2026-W01', '2026-W01-3', '2026-335', '2026-12-01T24:00', '2026-13-01', '2026-12-01T10:00:00.5Zyy'),
  text,
);
const hexish = fc.stringMatching(/^(#|0x|0h)?[0-9a-fA-FgG]{0,26}$/);
const numbers = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const arrays = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom('a', 'b', 'c', 1, 2), fc.object()), { maxLength: 5 }),
  fc.constantFrom(['a', 'b'], ['c', 'b', 'a'], ['a', 'a'], [{}, {}]),
);
// Ajv's multipleOf reads a quotient past 1e21 with parseInt (exponent notation) and refuses it: not the schema's meaning.
const divisible = fc.oneof(
  fc.integer({ min: -30, max: 30 }),
  fc.double({ min: -1e15, max: 1e15, noNaN: true }),
  any.filter((v) => typeof v !== 'number' || Math.abs(v) < 1e15),
);
/** A Date property as ValidationPipe sees it: class-transformer makes the Date from the JSON value first. */
const dateProperty =
  (validator: PropertyDecorator): PropertyDecorator =>
  (target, key) => {
    Type(() => Date)(target, key);
    validator(target, key);
  };

const both =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) => {
    for (const decorator of decorators) decorator(target, key);
  };

export const CASES: Case[] = [
  [
    'IsOptional + IsString',
    both(cv.IsOptional(), cv.IsString()),
    String,
    fc.oneof(fc.constant(null), text, any),
    'exact',
  ],
  [
    'IsOptional + IsIn',
    both(cv.IsOptional(), cv.IsIn(['a', 'b'])),
    String,
    fc.oneof(fc.constantFrom(null, 'a', 'c'), any),
    'exact',
  ],
  [
    'IsOptional + Equals',
    both(cv.IsOptional(), cv.Equals('yes')),
    String,
    fc.oneof(fc.constantFrom(null, 'yes', 'no'), any),
    'exact',
  ],
  ['IsString', cv.IsString(), String, fc.oneof(text, any), 'exact'],
  ['IsNumber', cv.IsNumber(), Number, fc.oneof(numbers, any), 'exact'],
  ['IsInt', cv.IsInt(), Number, fc.oneof(numbers, any), 'exact'],
  ['IsBoolean', cv.IsBoolean(), Boolean, fc.oneof(fc.boolean(), any), 'exact'],
  ['IsPositive', cv.IsPositive(), Number, fc.oneof(numbers, any), 'exact'],
  ['IsNegative', cv.IsNegative(), Number, fc.oneof(numbers, any), 'exact'],
  ['Min(3)', cv.Min(3), Number, fc.oneof(numbers, any), 'exact'],
  ['Max(3)', cv.Max(3), Number, fc.oneof(numbers, any), 'exact'],
  ['IsDivisibleBy(3)', cv.IsDivisibleBy(3), Number, divisible, 'looser'],
  ['IsIn', cv.IsIn(['brl', 'usd']), String, fc.oneof(fc.constantFrom('brl', 'usd', 'eur', 'BRL'), any), 'exact'],
  ['IsNotIn', cv.IsNotIn(['brl', 'usd']), String, fc.oneof(fc.constantFrom('brl', 'usd', 'eur'), any), 'exact'],
  [
    'IsEnum (string)',
    cv.IsEnum(Colour),
    String,
    fc.oneof(fc.constantFrom('red', 'blue', 'Red', 'green'), any),
    'exact',
  ],
  ['IsEnum (numeric)', cv.IsEnum(Level), Number, fc.oneof(fc.constantFrom(1, 2, 3, 'Low', 'High', '1'), any), 'exact'],
  ['Equals', cv.Equals('yes'), String, fc.oneof(fc.constantFrom('yes', 'no', 'Yes'), any), 'exact'],
  ['NotEquals', cv.NotEquals('yes'), String, fc.oneof(fc.constantFrom('yes', 'no'), any), 'exact'],
  ['IsDefined', cv.IsDefined(), Object, fc.oneof(fc.constant(null), any), 'exact'],
  ['IsNotEmpty', cv.IsNotEmpty(), Object, fc.oneof(fc.constantFrom('', null, 0, 'a'), any), 'exact'],
  ['IsEmpty', cv.IsEmpty(), Object, fc.oneof(fc.constantFrom('', null, 0, 'a'), any), 'exact'],
  ['MinLength(2)', cv.MinLength(2), String, fc.oneof(text, any), 'looser'],
  [
    'MaxLength(3)',
    cv.MaxLength(3),
    String,
    fc.oneof(fc.string({ maxLength: 5 }), fc.string({ unit: 'grapheme', maxLength: 4 }), any),
    'exact',
  ],
  ['Length(2, 4)', cv.Length(2, 4), String, fc.oneof(fc.string({ maxLength: 6 }), any), 'exact'],
  ['Matches', cv.Matches(/^[a-z]{2}-\d+$/), String, fc.oneof(fc.stringMatching(/^[a-z]{0,3}-?\d{0,2}$/), any), 'exact'],
  ['Matches (i flag)', cv.Matches(/^abc$/i), String, fc.oneof(fc.constantFrom('abc', 'ABC', 'abd'), any), 'looser'],
  ['Contains', cv.Contains('a.b'), String, fc.oneof(fc.constantFrom('xa.by', 'axb', 'a.b'), text, any), 'exact'],
  ['NotContains', cv.NotContains('a.b'), String, fc.oneof(fc.constantFrom('xa.by', 'axb'), text, any), 'exact'],
  ['IsDateString', cv.IsDateString(), String, fc.oneof(dateStrings, any), 'looser'],
  ['IsISO8601', cv.IsISO8601(), String, fc.oneof(dateStrings, any), 'looser'],
  [
    'IsBooleanString',
    cv.IsBooleanString(),
    String,
    fc.oneof(fc.constantFrom('true', 'false', '1', '0', 'yes'), any),
    'exact',
  ],
  [
    'IsNumberString',
    cv.IsNumberString(),
    String,
    fc.oneof(fc.stringMatching(/^[+-]?\d{0,3}\.?\d{0,3}$/), any),
    'exact',
  ],
  ['IsHexColor', cv.IsHexColor(), String, fc.oneof(hexish, any), 'exact'],
  ['IsHexadecimal', cv.IsHexadecimal(), String, fc.oneof(hexish, any), 'exact'],
  ['IsMongoId', cv.IsMongoId(), String, fc.oneof(hexish, fc.stringMatching(/^[0-9a-f]{24}$/), any), 'exact'],
  ['IsAlpha', cv.IsAlpha(), String, fc.oneof(fc.stringMatching(/^[a-zA-Z0-9]{0,4}$/), any), 'exact'],
  ['IsAlphanumeric', cv.IsAlphanumeric(), String, fc.oneof(fc.stringMatching(/^[a-zA-Z0-9_]{0,4}$/), any), 'exact'],
  ['IsAscii', cv.IsAscii(), String, fc.oneof(text, any), 'exact'],
  ['IsMilitaryTime', cv.IsMilitaryTime(), String, fc.oneof(fc.stringMatching(/^\d{2}:?\d{2}$/), any), 'exact'],
  [
    'IsUUID',
    cv.IsUUID(),
    String,
    fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.replace(/-/g, '')),
      any,
    ),
    'looser',
  ],
  [
    'IsEmail',
    cv.IsEmail(),
    String,
    fc.oneof(fc.emailAddress(), fc.constantFrom('ü@bücher.de', 'a@b', '@x.io'), any),
    'looser',
  ],
  [
    'IsUrl',
    cv.IsUrl(),
    String,
    fc.oneof(fc.webUrl(), fc.domain(), fc.constantFrom('http://例子.测试', 'a b'), any),
    'looser',
  ],
  [
    "IsUrl (Kadu's webhooks)",
    cv.IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }),
    String,
    fc.oneof(
      fc.webUrl({ validSchemes: ['http', 'https', 'ftp', 'HTTPS'] }),
      fc.domain(),
      fc.constantFrom('HTTP://x'),
      any,
    ),
    'looser',
  ],
  ['IsFQDN', cv.IsFQDN(), String, fc.oneof(fc.domain(), text, any), 'looser'],
  ['IsIP', cv.IsIP(), String, fc.oneof(fc.ipV4(), fc.ipV6(), text, any), 'looser'],
  ['IsIP(4)', cv.IsIP('4'), String, fc.oneof(fc.ipV4(), fc.ipV6(), text, any), 'looser'],
  ['IsBase64', cv.IsBase64(), String, fc.oneof(fc.base64String(), text, any), 'looser'],
  ['IsJSON', cv.IsJSON(), String, fc.oneof(fc.json(), text, any), 'looser'],
  ['IsLowercase', cv.IsLowercase(), String, fc.oneof(text, any), 'looser'],
  ['IsUppercase', cv.IsUppercase(), String, fc.oneof(text, any), 'looser'],
  ['IsFullWidth', cv.IsFullWidth(), String, fc.oneof(text, any), 'exact'],
  ['IsHalfWidth', cv.IsHalfWidth(), String, fc.oneof(text, any), 'exact'],
  ['IsMultibyte', cv.IsMultibyte(), String, fc.oneof(text, any), 'exact'],
  ['IsSurrogatePair', cv.IsSurrogatePair(), String, fc.oneof(text, any), 'looser'],
  ['IsDate', dateProperty(cv.IsDate()), Date, fc.oneof(isoDate, fc.constant('not a date'), any), 'looser'],
  [
    'MinDate',
    dateProperty(cv.MinDate(new Date('2026-01-01'))),
    Date,
    fc.oneof(isoDate, fc.constant('not a date'), any),
    'looser',
  ],
  ['IsArray', cv.IsArray(), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayNotEmpty', cv.ArrayNotEmpty(), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayMinSize(2)', cv.ArrayMinSize(2), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayMaxSize(2)', cv.ArrayMaxSize(2), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayContains', cv.ArrayContains(['a', 'b']), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayNotContains', cv.ArrayNotContains(['a', 'b']), Array, fc.oneof(arrays, any), 'exact'],
  ['ArrayUnique', cv.ArrayUnique(), Array, fc.oneof(arrays, any), 'looser'],
  ['IsObject', cv.IsObject(), Object, fc.oneof(fc.object(), any), 'exact'],
  ['IsNotEmptyObject', cv.IsNotEmptyObject(), Object, fc.oneof(fc.object(), fc.constant({}), any), 'exact'],
];
