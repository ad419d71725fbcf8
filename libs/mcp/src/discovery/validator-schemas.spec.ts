import 'reflect-metadata';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { plainToInstance } from 'class-transformer';
import * as cv from 'class-validator';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { CASES } from '../../test/support/validator-cases.js';
import { DtoSchemaBuilder } from './dto-schema.js';

/**
 * Issue 28, point 5: for every class-validator decorator the module maps, and each one Kadu uses,
 * values the validator accepts and refuses are checked against the generated JSON Schema (Ajv,
 * draft 2020-12 with the standard formats). `exact`: the two agree on every value; `looser`: what
 * the validator accepts the schema accepts (docs/schemas.md lists why each cannot be exact).
 * Fixed seed: the same values on every run.
 */
const SEED = 28;
const RUNS = 300;
// ajv-formats is CommonJS with `exports.default`: under ESM loaders the function is the module or its `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allowUnionTypes: true }));

function dtoWith(decorator: PropertyDecorator, designType: unknown): new () => { v?: unknown } {
  class Dto {
    v?: unknown;
  }
  Reflect.defineMetadata('design:type', designType, Dto.prototype, 'v');
  decorator(Dto.prototype, 'v');
  return Dto;
}

describe('each mapped class-validator decorator: the schema agrees with the validator', () => {
  it.each(CASES)('%s', async (name, decorator, designType, values, agreement) => {
    const Dto = dtoWith(decorator, designType);
    const schema = new DtoSchemaBuilder().build(Dto);
    const check = ajv.compile(schema);
    const seen = { accepted: 0, refused: 0 };
    await checkProperty(
      `the schema of ${name} agrees with its validator`,
      fc.property(values, (value) => {
        // What ValidationPipe does with `transform`: the instance first, then its validation.
        const errors = cv.validateSync(plainToInstance(Dto, { v: value }));
        const validator = errors.length === 0;
        const jsonSchema = check({ v: value });
        if (validator) seen.accepted++;
        else seen.refused++;
        if (agreement === 'exact') return jsonSchema === validator;
        return !validator || jsonSchema;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Values on both sides were drawn: the agreement was tested, not assumed.
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it.each([
    ['2026-12-01', true],
    ['2026-12-01T10:00:00Z', true],
    ['2026-12-01T10:00:00.5Z', true],
    ['xx2026-12-01T10:00:00.5Zyy', false],
  ])('IsDateString: %s is %s for the validator and the schema alike (the values of issue 28)', (value, accepted) => {
    const Dto = dtoWith(cv.IsDateString(), String);
    const check = ajv.compile(new DtoSchemaBuilder().build(Dto));
    expect(cv.validateSync(Object.assign(new Dto(), { v: value })).length === 0).toBe(accepted);
    expect(check({ v: value })).toBe(accepted);
  });
});
