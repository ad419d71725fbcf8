import { PgliteDatabase } from './pglite-database.js';
import { ApiError } from '../common/api-error.js';

/** The net under validation: a value PostgreSQL refuses is the caller's 422, never a 500. */
describe('database errors caused by input', () => {
  let db: PgliteDatabase;
  beforeAll(async () => {
    db = await PgliteDatabase.open(undefined);
  });
  afterAll(() => db.close());

  it.each([
    ['NUL in text', 'select $1::text', ['a\u0000b']],
    ['NUL in jsonb', 'select $1::jsonb', [JSON.stringify({ a: 'a\u0000b' })]],
    ['a lone surrogate in jsonb', 'select $1::jsonb', [JSON.stringify({ a: '\ud800' })]],
    ['an integer out of range', 'select $1::int', ['99999999999']],
  ])('%s is a 422 validation_failed', async (_what, sql, params) => {
    const error = await db.query(sql, params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).getStatus()).toBe(422);
    expect((error as ApiError).getResponse()).toMatchObject({ errors: [{ code: 'validation_failed' }] });
    const inTransaction = await db.transaction((tx) => tx.query(sql, params)).catch((e: unknown) => e);
    expect((inTransaction as ApiError).getStatus()).toBe(422);
  });

  it('other errors pass through unchanged', async () => {
    const error = await db.query('select * from no_such_table').catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
  });
});
