import 'reflect-metadata';
import { type ArgumentMetadata, HttpException, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import * as cv from 'class-validator';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { CASES } from '../../test/support/validator-cases.js';
import { McpValidationPipe } from './mcp-validation.pipe.js';

/**
 * McpValidationPipe answers as Nest's ValidationPipe does, value for value (issue 32): the same
 * instance, or the same error. Every decorator of validator-cases.ts, under the option sets tools
 * use, on drawn inputs; then each shape the quick path must leave to the pipe's own path.
 */
type Outcome =
  | { ok: true; prototype: unknown; fields: Record<string, unknown> }
  | { ok: false; status: number | undefined; body: unknown };

const OPTION_SETS: Record<string, ValidationPipeOptions> = {
  transform: { transform: true },
  closed: { transform: true, whitelist: true, forbidNonWhitelisted: true },
  'first error': { transform: true, whitelist: true, stopAtFirstError: true },
  'no transform': { whitelist: true },
};

async function outcomeOf(run: () => unknown): Promise<Outcome> {
  try {
    const value = (await run()) as object;
    return { ok: true, prototype: Object.getPrototypeOf(value), fields: { ...value } };
  } catch (error) {
    if (!(error instanceof HttpException)) throw error;
    return { ok: false, status: error.getStatus(), body: error.getResponse() };
  }
}

/** Both pipes on copies of one input; the outcome, and whether McpValidationPipe answered in the same tick. */
async function compare(
  options: ValidationPipeOptions,
  metatype: Function,
  input: unknown,
  meta?: Partial<ArgumentMetadata>,
) {
  const metadata = { type: 'body', metatype, ...meta } as ArgumentMetadata;
  const ours = new McpValidationPipe(options);
  const nest = new ValidationPipe(options);
  let answer: unknown;
  const mine = await outcomeOf(() => (answer = ours.transform(structuredClone(input), metadata)));
  const theirs = await outcomeOf(() => nest.transform(structuredClone(input), metadata));
  expect(mine).toEqual(theirs);
  return { outcome: mine, immediate: typeof (answer as { then?: unknown } | null)?.then !== 'function' };
}

function dtoWith(decorator: PropertyDecorator, designType: unknown): new () => object {
  class Dto {
    v?: unknown;
    note?: string;
  }
  Reflect.defineMetadata('design:type', designType, Dto.prototype, 'v');
  decorator(Dto.prototype, 'v');
  cv.IsOptional()(Dto.prototype, 'note');
  cv.IsString()(Dto.prototype, 'note');
  return Dto;
}

const extraKeys = fc.constantFrom('note', 'extra', 'toString', '__proto__', 'constructor', 'prototype');

describe('McpValidationPipe: the same answer as ValidationPipe', () => {
  it.each(Object.entries(OPTION_SETS))('for every decorator of validator-cases.ts, with %s', async (label, options) => {
    const seen = { immediate: 0, accepted: 0, refused: 0 };
    for (const [name, decorator, designType, values] of CASES) {
      const Dto = dtoWith(decorator, designType);
      await checkProperty(
        `${name} (${label})`,
        fc.asyncProperty(values, fc.dictionary(extraKeys, fc.jsonValue(), { maxKeys: 2 }), async (v, extra) => {
          const input = JSON.parse(JSON.stringify({ ...extra, v })) as unknown;
          const { outcome, immediate } = await compare(options, Dto, input);
          if (immediate) seen.immediate++;
          if (outcome.ok) seen.accepted++;
          else seen.refused++;
        }),
        { numRuns: 40 },
      );
    }
    // Both verdicts were drawn, and the quick path was taken where it applies (transform on).
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
    // The quick path answers only what the pipe accepts; with transform off it never answers.
    if (options.transform) expect(seen.immediate).toBeGreaterThan(0);
    else expect(seen.immediate).toBe(0);
    expect(seen.immediate).toBeLessThanOrEqual(seen.accepted);
  });
});

class Echo {
  @cv.IsString()
  @cv.MaxLength(5)
  text!: string;

  @cv.IsInt()
  @cv.Min(1)
  times: number = 1;

  @cv.IsOptional()
  @cv.IsString({ each: true })
  tags?: string[];
}

describe('McpValidationPipe: the quick path', () => {
  const closed = OPTION_SETS.closed!;

  it('answers a flat valid input in the same tick, with an instance of the class', async () => {
    const { outcome, immediate } = await compare(closed, Echo, { text: 'hi', times: 2, tags: ['a', 'b'] });
    expect(immediate).toBe(true);
    expect(outcome).toEqual({
      ok: true,
      prototype: Echo.prototype,
      fields: { text: 'hi', times: 2, tags: ['a', 'b'] },
    });
  });

  it('keeps a field initializer when the field is absent, as plainToInstance does', async () => {
    const { outcome, immediate } = await compare(closed, Echo, { text: 'hi' });
    expect(immediate).toBe(true);
    expect(outcome).toMatchObject({ ok: true, fields: { text: 'hi', times: 1 } });
  });

  it('copies arrays: the instance never shares them with the input', async () => {
    const input = { text: 'hi', tags: ['a'] };
    const result = (await new McpValidationPipe(closed).transform(input, { type: 'body', metatype: Echo })) as Echo;
    expect(result.tags).toEqual(['a']);
    expect(result.tags).not.toBe(input.tags);
  });

  it('leaves a refusal to the pipe: its own error, through its exceptionFactory', async () => {
    const options = {
      ...closed,
      exceptionFactory: (errors: cv.ValidationError[]) =>
        new HttpException(
          errors.map((e) => e.property),
          422,
        ),
    };
    const { outcome } = await compare(options, Echo, { text: 'too long', times: 0, other: 1 });
    expect(outcome).toEqual({ ok: false, status: 422, body: ['other', 'text', 'times'] });
  });
});

describe('McpValidationPipe: what only the pipe’s own path answers', () => {
  const closed = OPTION_SETS.closed!;

  class Converted {
    @Type(() => Number)
    @cv.IsInt()
    n!: number;
  }
  class Trimmed {
    @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
    @cv.IsString()
    s!: string;
  }
  @Exclude()
  class Exposed {
    @Expose()
    @cv.IsString()
    s!: string;
  }
  class Computed {
    @cv.IsOptional()
    @cv.IsString()
    s?: string;
    get upper() {
      return this.s?.toUpperCase();
    }
  }
  class Nested {
    @cv.ValidateNested()
    @Type(() => Echo)
    echo!: Echo;
  }
  class Loose {
    @cv.IsOptional()
    @cv.IsString()
    s?: string;
  }
  const slow = cv.ValidateBy({
    name: 'slowlyAccepted',
    validator: { validate: (value: unknown) => Promise.resolve(value === 'yes') },
  });
  class Promised {
    @slow
    s!: string;
  }
  class AsyncDeclared {
    @cv.ValidateBy({
      name: 'asyncAccepted',
      async: true,
      validator: { validate: async (value: unknown) => value === 'yes' },
    })
    s!: string;
  }

  it.each<[string, Function, unknown]>([
    ['@Type conversion', Converted, { n: '12' }],
    ['@Transform', Trimmed, { s: '  x  ' }],
    ['a class-level @Exclude/@Expose strategy', Exposed, { s: 'x', other: 'y' }],
    ['a getter named by the input', Computed, { s: 'x', upper: 'Y' }],
    ['a method named by the input', Loose, { s: 'x', toString: 'y' }],
    ['a nested object', Nested, { echo: { text: 'hi', times: 2 } }],
    ['a nested array of objects', Echo, { text: 'hi', tags: [{ a: 1 }] }],
    ['a __proto__ key', Loose, JSON.parse('{"s":"x","__proto__":{"polluted":true}}')],
    ['a constructor key', Loose, { s: 'x', constructor: 'y' }],
    ['a validator answering with a promise, not declared async (refused)', Promised, { s: 'no' }],
    ['a validator answering with a promise, not declared async (accepted)', Promised, { s: 'yes' }],
    ['an async validator (refused)', AsyncDeclared, { s: 'no' }],
  ])('%s', async (_label, metatype, input) => {
    for (const options of [closed, OPTION_SETS.transform!]) {
      const { immediate } = await compare(options, metatype, input);
      expect(immediate).toBe(false);
    }
  });

  it('enableImplicitConversion and expectedType take the pipe’s own path too', async () => {
    expect(
      (await compare({ ...closed, transformOptions: { enableImplicitConversion: true } }, Echo, { text: 'a' }))
        .immediate,
    ).toBe(false);
    const expected = await compare({ ...closed, expectedType: Echo }, Object, { text: 'a' }, { metatype: Loose });
    expect(expected).toMatchObject({ immediate: true, outcome: { ok: true, prototype: Echo.prototype } });
  });

  it('a subclass with its own validate() is always asked', async () => {
    let asked = 0;
    class Counting extends McpValidationPipe {
      protected override validate(object: object, options?: cv.ValidatorOptions) {
        asked++;
        return super.validate(object, options);
      }
    }
    await new Counting(closed).transform({ text: 'hi' }, { type: 'body', metatype: Echo });
    expect(asked).toBe(1);
  });
});
