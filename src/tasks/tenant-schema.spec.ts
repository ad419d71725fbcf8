import { compileTenantSchema, SCHEMA_LIMITS, SchemaRefused } from './tenant-schema.js';

describe('tenant JSON Schemas', () => {
  it('an $id names nothing outside its own document: two schemas with the same $id live side by side', () => {
    const a = compileTenantSchema({ $id: 'urn:x:del', required: ['acct'], properties: { acct: { maxLength: 5 } } });
    const b = compileTenantSchema({ $id: 'urn:x:del', properties: { other: { type: 'number' } } });
    expect(a({ acct: '123456' })).toBe(false);
    expect(b({ acct: '123456' })).toBe(true);
    expect(() => compileTenantSchema({ $ref: 'urn:x:del' })).toThrow(SchemaRefused);
  });

  it('references resolve only inside the same schema', () => {
    const local = compileTenantSchema({ $defs: { n: { type: 'integer' } }, properties: { a: { $ref: '#/$defs/n' } } });
    expect(local({ a: 1 })).toBe(true);
    expect(local({ a: 'x' })).toBe(false);
    for (const ref of ['urn:x:del', 'https://example.com/s.json', 'other.json#/a', 'file:///etc/passwd']) {
      expect(() => compileTenantSchema({ properties: { a: { $ref: ref } } }), ref).toThrow(
        /points outside this schema/,
      );
    }
  });

  it('patterns run on RE2: ^(a+)+$ answers at once on a long adversarial input; lookaround and backreferences are refused', () => {
    const validate = compileTenantSchema({ properties: { k: { type: 'string', pattern: '^(a+)+$' } } });
    expect(validate({ k: `${'a'.repeat(200_000)}!` })).toBe(false);
    expect(validate({ k: 'aaaa' })).toBe(true);
    expect(() => compileTenantSchema({ pattern: '(?=a)b' })).toThrow(/unsupported Perl syntax/);
    expect(() => compileTenantSchema({ pattern: '(a)\\1' })).toThrow(SchemaRefused);
    expect(() => compileTenantSchema({ patternProperties: { '(?!x)': {} } })).toThrow(SchemaRefused);
  });

  it('uniqueItems is checked in one pass and still finds duplicates regardless of key order', () => {
    const validate = compileTenantSchema({ type: 'array', uniqueItems: true });
    const distinct = Array.from({ length: 16_000 }, (_, i) => [i, i + 1]);
    expect(validate(distinct)).toBe(true);
    expect(
      validate([
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({
      keyword: 'uniqueItems',
      message: 'must NOT have duplicate items (items ## 0 and 1 are identical)',
    });
  });

  it('refuses $async, too deep, too many nodes, too many or too long patterns', () => {
    expect(() => compileTenantSchema({ $async: true })).toThrow(/\$async/);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < SCHEMA_LIMITS.depth; i++) deep = { properties: { a: deep } };
    expect(() => compileTenantSchema(deep)).toThrow(/nested deeper than 32/);
    const wide = { enum: Array.from({ length: SCHEMA_LIMITS.nodes }, () => []) };
    expect(() => compileTenantSchema(wide)).toThrow(/more than 300 objects and arrays/);
    const many = { properties: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`p${i}`, { pattern: 'a' }])) };
    expect(() => compileTenantSchema(many)).toThrow(/more than 8 regular expressions/);
    expect(() => compileTenantSchema({ pattern: 'a'.repeat(513) })).toThrow(/longer than 512/);
    expect(() => compileTenantSchema({ pattern: '^\\p{L}{500}$' })).toThrow(
      /too complex \(50\d RE2 instructions; limit 250\)/,
    );
    expect(compileTenantSchema({ pattern: '^[a-z]{1,90}$' })('abc')).toBe(true);
    expect(() => compileTenantSchema({ pattern: '^\\p{L}{1,120}$' })).toThrow(
      /too complex together \(over 20000 RE2 units\)/,
    );
    expect(compileTenantSchema({ pattern: '^\\p{L}+$' })('été')).toBe(true);
  });

  it('data keywords are data: a $ref string inside enum or default is not a reference', () => {
    const validate = compileTenantSchema({ enum: [{ $ref: 'https://example.com' }], default: { $ref: 'x' } });
    expect(validate({ $ref: 'https://example.com' })).toBe(true);
  });

  it('unknown formats and keywords are ignored quietly (no shared log noise)', () => {
    const validate = compileTenantSchema({ type: 'string', format: 'no-such-format', 'x-note': 1 });
    expect(validate('x')).toBe(true);
  });
});
