import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';

/**
 * Issue 13: a task's input_schema is a tenant's program. Each one is compiled alone (no registry
 * shared across organisations), references stay inside it, patterns run on RE2 and the work of
 * one validation is bounded. Refusals are asserted, never times (bench/hostile-input.mjs measures).
 */
let kadu: KaduTestApp;
let acme: KaduClient;
let beta: KaduClient;

beforeAll(async () => {
  kadu = await startKadu();
  acme = new KaduClient(kadu);
  beta = new KaduClient(kadu, { org: 'beta', user: 'bo@beta.test', role: 'admin' });
});
afterAll(() => kadu.close());

const task = (client: KaduClient, input_schema: unknown, name = 'Schema task') =>
  client.rest('post', '/api/v1/tasks', { name, kind: 'echo', cost_cap: 5, input_schema });
const run = (client: KaduClient, id: string, input: unknown) =>
  client.rest('post', `/api/v1/tasks/${id}/run`, { input });

describe('no schema reaches across organisations', () => {
  const LEAKY = { $id: 'urn:x:del', required: ['acct'], properties: { acct: { maxLength: 5 } } };

  it("B cannot reference, probe or squat A's $id, and A's own tasks with an $id run", async () => {
    const a = await task(acme, LEAKY);
    expect(a.status).toBe(201);
    expect((await run(acme, a.body.data.id, { acct: '12345' })).status).toBe(202);
    expect((await acme.rest('delete', `/api/v1/tasks/${a.body.data.id}`)).status).toBe(200);

    // A reference to another document is refused whether or not such an $id was ever used.
    const known = await task(beta, { $ref: 'urn:x:del' });
    const unknown = await task(beta, { $ref: 'urn:x:never-used' });
    expect(known.status).toBe(422);
    expect(known.body.errors[0]).toMatchObject({ code: 'validation_failed', param: 'input_schema' });
    expect(known.body.errors[0].detail).toContain('points outside this schema');
    expect(unknown.body.errors[0].detail).toBe(known.body.errors[0].detail.replace('urn:x:del', 'urn:x:never-used'));

    // The same $id in two organisations (and twice in one) is no conflict: each schema is its own document.
    const squat = await task(beta, { $id: 'urn:x:del', properties: { acct: { type: 'number' } } });
    expect(squat.status).toBe(201);
    const again = await task(acme, LEAKY, 'Second with the same $id');
    expect(again.status).toBe(201);
    const first = await run(acme, again.body.data.id, { acct: '123456' });
    expect(first.status).toBe(422);
    expect(first.body.errors).toEqual([
      expect.objectContaining({
        code: 'input_invalid',
        param: 'input.acct',
        detail: 'input/acct must NOT have more than 5 characters',
      }),
    ]);
    expect((await run(beta, squat.body.data.id, { acct: 7 })).status).toBe(202);
  });

  it.each(['https://example.com/schema.json', 'other.json#/defs/a', 'file:///etc/passwd'])(
    'a remote or cross-document $ref (%s) is refused, over MCP too',
    async (ref) => {
      expect((await task(acme, { properties: { a: { $ref: ref } } })).status).toBe(422);
      const res = await acme.tool('2026', 'kadu_tasks_create', {
        name: 'x',
        kind: 'echo',
        cost_cap: 1,
        input_schema: { $ref: ref },
      });
      expect(res.isError).toBe(true);
      expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed', param: 'input_schema' });
    },
  );

  it('references inside the schema work', async () => {
    const t = await task(acme, {
      $defs: { amount: { type: 'integer', minimum: 0 } },
      properties: { total: { $ref: '#/$defs/amount' } },
    });
    expect(t.status).toBe(201);
    expect((await run(acme, t.body.data.id, { total: 3 })).status).toBe(202);
    expect((await run(acme, t.body.data.id, { total: -1 })).body.errors[0]).toMatchObject({
      code: 'input_invalid',
      param: 'input.total',
    });
  });

  it('an edited schema is a new version: the next run checks the new one', async () => {
    const t = await task(acme, { properties: { n: { type: 'string' } } });
    expect((await run(acme, t.body.data.id, { n: 'x' })).status).toBe(202);
    expect(
      (
        await acme.rest('patch', `/api/v1/tasks/${t.body.data.id}`, {
          input_schema: { properties: { n: { type: 'number' } } },
        })
      ).status,
    ).toBe(200);
    expect((await run(acme, t.body.data.id, { n: 'x' })).status).toBe(422);
  });
});

describe('bounded work', () => {
  it('^(a+)+$ is accepted and runs on RE2: 25 or 60,000 "a"s then "!" is refused as not matching', async () => {
    const t = await task(acme, { properties: { k: { type: 'string', pattern: '^(a+)+$' } } });
    expect(t.status).toBe(201);
    for (const length of [25, 60_000]) {
      const res = await run(acme, t.body.data.id, { k: `${'a'.repeat(length)}!` });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({
        code: 'input_invalid',
        param: 'input.k',
        detail: 'input/k must match pattern "^(a+)+$"',
      });
    }
  });

  it.each([
    ['a lookahead', { pattern: '^(?=.*\\d).+$' }],
    ['a backreference', { pattern: '(a)\\1' }],
    ['a patternProperties lookbehind', { patternProperties: { '(?<!x)y': {} } }],
  ])('%s is refused when the task is saved, with a 422 saying why', async (_what, schema) => {
    const res = await task(acme, { type: 'string', ...schema });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed', param: 'input_schema' });
    expect(res.body.errors[0].detail).toMatch(
      /^input_schema is not usable: .*is not supported \(RE2 syntax: no lookaround or backreferences\)/,
    );
  });

  it('uniqueItems: 16,000 small arrays (117 KB) are over the input limit; 6,000 are checked in one pass; a duplicate is named', async () => {
    const t = await task(acme, { properties: { rows: { type: 'array', uniqueItems: true } } });
    const tooMany = await run(acme, t.body.data.id, { rows: Array.from({ length: 16_000 }, (_, i) => [i, i + 1]) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toEqual([
      expect.objectContaining({ param: 'input', detail: 'input must be at most 65536 bytes as JSON' }),
    ]);
    const rows = Array.from({ length: 6_000 }, (_, i) => [i, i % 7]);
    expect((await run(acme, t.body.data.id, { rows })).status).toBe(202);
    const dup = await run(acme, t.body.data.id, { rows: [...rows.slice(0, 100), [5, 5]] });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0].detail).toBe(
      'input/rows must NOT have duplicate items (items ## 5 and 100 are identical)',
    );
  });

  it('schema size, depth, node count and pattern count are limited, each with a 422', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { properties: { a: deep } }; // 41 levels: under the door's 64, over the schema's 32
    const cases: [unknown, RegExp][] = [
      [{ description: 'x'.repeat(20_000) }, /input_schema must be at most 16384 bytes as JSON/],
      [deep, /nested deeper than 32 levels/],
      [{ anyOf: Array.from({ length: 400 }, () => ({})) }, /more than 300 objects and arrays/],
      [
        { properties: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`p${i}`, { pattern: 'a' }])) },
        /more than 8 regular expressions/,
      ],
      [{ pattern: '.{900}' }, /too complex \(90\d RE2 instructions; limit 250\): use smaller repetition counts/],
      [{ pattern: '^\\p{L}{1,120}$' }, /the patterns are too complex together \(over \d+ RE2 units\)/],
      [{ $async: true }, /\$async schemas are not supported/],
    ];
    for (const [schema, detail] of cases) {
      const res = await task(acme, schema);
      expect(res.status, String(detail)).toBe(422);
      expect(res.body.errors[0].param).toBe('input_schema');
      expect(res.body.errors[0].detail).toMatch(detail);
    }
  });

  it('a run input over 64 KiB is refused before anything is stored; a failing input reports at most 20 errors', async () => {
    const t = await task(acme, { type: 'object', additionalProperties: { type: 'number' } });
    const big = await run(acme, t.body.data.id, { blob: 'x'.repeat(70_000) });
    expect(big.status).toBe(422);
    expect(big.body.errors).toEqual([
      expect.objectContaining({
        code: 'validation_failed',
        param: 'input',
        detail: 'input must be at most 65536 bytes as JSON',
      }),
    ]);
    const many = await run(
      acme,
      t.body.data.id,
      Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 'not a number'])),
    );
    expect(many.status).toBe(422);
    expect(many.body.errors).toHaveLength(21);
    expect(many.body.errors[20].detail).toBe('and 480 more errors');
  });
});
