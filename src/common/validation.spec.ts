import 'reflect-metadata';
import fc from 'fast-check';
import { HttpException, type ArgumentMetadata } from '@nestjs/common';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { checkProperty } from '../../test/support/properties.js';
import { CreateTaskDto, DestinationsDto, LaunchPolicyDto, RunTaskDto, UpdateTaskDto } from '../tasks/task.dto.js';
import { KaduValidationPipe, MaxJsonBytes } from './validation.js';

class EchoLikeDto {
  @IsString()
  @MaxLength(100)
  text: string;

  @IsInt()
  @Min(1)
  @Max(5)
  times: number;
}

/** A subclass of a DTO with a free-form field, adding one of its own. */
class MoreInputDto extends RunTaskDto {
  @MaxJsonBytes(64)
  extra?: Record<string, unknown>;
}

/** A field named as a key Nest's pipe strips (stripProtoKeys). */
class ProtoNamedDto {
  @IsString()
  prototype: string;

  @IsInt()
  times: number;
}

/** The pipe as it was before the shortcuts: every value is checked for unsafe text, every object shaped into a copy. */
class WithoutShortcut extends KaduValidationPipe {
  protected override isSafeOwnShape(): boolean {
    return false;
  }
  protected override isItsOwnShape(): boolean {
    return false;
  }
}

/** The pipe, counting the values it validated as they are (by either shortcut, and by the one-pass one). */
class Counting extends KaduValidationPipe {
  shortcuts = 0;
  onePass = 0;
  protected override isSafeOwnShape(...args: Parameters<KaduValidationPipe['isSafeOwnShape']>): boolean {
    const taken = super.isSafeOwnShape(...args);
    if (taken) {
      this.shortcuts++;
      this.onePass++;
    }
    return taken;
  }
  protected override isItsOwnShape(...args: Parameters<KaduValidationPipe['isItsOwnShape']>): boolean {
    const taken = super.isItsOwnShape(...args);
    if (taken) this.shortcuts++;
    return taken;
  }
}

const DTOS = [
  EchoLikeDto,
  ProtoNamedDto,
  CreateTaskDto,
  UpdateTaskDto,
  RunTaskDto,
  MoreInputDto,
  LaunchPolicyDto,
  DestinationsDto,
];
const FIELDS = [
  'text',
  'times',
  'name',
  'description',
  'kind',
  'instructions',
  'input_schema',
  'cost_cap',
  'input',
  'input_file_ids',
  'extra',
  'roles',
  'member_ids',
  'destinations',
];

/** Where the value comes from: a whole body or query (a DTO), or one named part of it. */
const PLACES: Omit<ArgumentMetadata, 'metatype'>[] = [
  { type: 'body', data: undefined },
  { type: 'body', data: undefined },
  { type: 'query', data: undefined },
  { type: 'body', data: 'input' },
  { type: 'param', data: 'id' },
];

const scalar = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('echo', 'admin', 'webhook', 'x'.repeat(130), '\u0000', '\ud800'),
  fc.integer({ min: -2, max: 100_002 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { weight: 5, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(
        fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('type', 'webhook_id')),
        tie('value'),
        {
          maxKeys: 3,
        },
      ),
    },
    { weight: 1, arbitrary: fc.constant({ type: 'webhook', webhook_id: 'w1' }) },
  ),
})).value;
const key = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'stranger') },
);
/**
 * The body as the server's parser builds it: JSON text parsed, so `__proto__` is an own key; now
 * and then without a prototype, as a query string's parser builds one.
 */
const body = fc
  .tuple(fc.array(fc.tuple(key, json), { maxLength: 6 }), fc.boolean(), fc.integer({ min: 0, max: 9 }))
  .map(([entries, bare, seed]) => ({
    text: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`,
    bare: bare && seed === 0,
  }));
const parsed = ({ text, bare }: { text: string; bare: boolean }): unknown =>
  bare ? Object.assign(Object.create(null) as object, JSON.parse(text) as object) : JSON.parse(text);

/**
 * A value as data: each object as its prototype's constructor name and its own entries, each array
 * as its items (holes marked). Unlike toStrictEqual, an own key named `constructor` is an entry.
 */
function dump(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value))
    return ['array', Array.from({ length: value.length }, (_, i) => (i in value ? dump(value[i]) : 'hole'))];
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  const kind = proto === null ? 'null' : proto === Object.prototype ? 'object' : (proto.constructor?.name ?? '?');
  return [kind, Object.entries(value).map(([k, v]) => [k, dump(v)])];
}

async function outcome(pipe: KaduValidationPipe, value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
  try {
    return { entity: dump(await pipe.transform(value, metadata)) };
  } catch (error) {
    if (error instanceof HttpException) return { error: [error.getStatus(), error.getResponse()] };
    throw error;
  }
}

describe('KaduValidationPipe', () => {
  it('validates a value that is its own shape as the copy it shaped before, on drawn bodies', async () => {
    const pipe = new Counting();
    const before = new WithoutShortcut();
    await checkProperty(
      'KaduValidationPipe = without its shortcut',
      fc.asyncProperty(fc.constantFrom(...DTOS), body, fc.constantFrom(...PLACES), async (metatype, drawn, place) => {
        const metadata: ArgumentMetadata = { ...place, metatype };
        const mine = parsed(drawn);
        const theirs = parsed(drawn);
        expect(await outcome(pipe, mine, metadata)).toEqual(await outcome(before, theirs, metadata));
        // And the value itself is left as the copy left it.
        expect(dump(mine)).toEqual(dump(theirs));
      }),
      { numRuns: 2_000 },
    );
    // The draws took the shortcut often enough to prove it (and not always).
    expect(pipe.shortcuts).toBeGreaterThan(200);
    expect(pipe.shortcuts).toBeLessThan(1_800);
    expect(pipe.onePass).toBeGreaterThan(100);
  });

  it('takes the shortcut for a flat DTO body and still refuses what the copy refused', async () => {
    const pipe = new Counting();
    const metadata: ArgumentMetadata = { type: 'body', metatype: EchoLikeDto, data: undefined };
    const entity = (await pipe.transform({ text: 'hello', times: 2 }, metadata)) as EchoLikeDto;
    expect(entity).toBeInstanceOf(EchoLikeDto);
    expect({ ...entity }).toEqual({ text: 'hello', times: 2 });
    expect(pipe.shortcuts).toBe(1);
    expect(pipe.onePass).toBe(1);
    await expect(Promise.resolve().then(() => pipe.transform({ text: 'x', times: 9 }, metadata))).rejects.toThrow();
    // An undeclared key or a free-form object: shaped as before.
    await expect(
      Promise.resolve().then(() => pipe.transform({ text: 'x', times: 1, y: 1 }, metadata)),
    ).rejects.toThrow();
    const run: ArgumentMetadata = { type: 'body', metatype: RunTaskDto, data: undefined };
    expect(await pipe.transform({ input: { a: 1 } }, run)).toEqual({ input: { a: 1 } });
    expect(pipe.shortcuts).toBe(2);
  });
});
