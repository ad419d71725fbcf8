import 'reflect-metadata';
import { getMetadataStorage, IsInt, IsString, MaxLength, registerDecorator, validate } from 'class-validator';
import { memoiseValidationMetadata } from './validation-metadata-memo.js';

/** The memoised rule lookup answers exactly as class-validator does, rules added later included. */
memoiseValidationMetadata();

class Base {
  @IsString()
  name!: string;
}

class Child extends Base {
  @IsInt()
  count!: number;
}

const errorsOf = async (value: object) =>
  (await validate(value, { whitelist: true, forbidNonWhitelisted: true })).map((e) => e.property).sort();

describe('memoised validation metadata', () => {
  it('applies own and inherited rules, the same on every call', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await errorsOf(Object.assign(new Child(), { name: 'a', count: 1 }))).toEqual([]);
      expect(await errorsOf(Object.assign(new Child(), { name: 1, count: 'x' }))).toEqual(['count', 'name']);
      expect(await errorsOf(Object.assign(new Child(), { name: 'a', count: 1, extra: true }))).toEqual(['extra']);
      expect(await errorsOf(Object.assign(new Base(), { name: 'a', count: 'x' }))).toEqual(['count']);
    }
  });

  it('sees a rule added after the class was first validated', async () => {
    class Late {
      @IsString()
      title!: string;
    }
    const long = Object.assign(new Late(), { title: 'x'.repeat(20) });
    expect(await errorsOf(long)).toEqual([]);
    MaxLength(10)(Late.prototype, 'title');
    expect(await errorsOf(long)).toEqual(['title']);
    registerDecorator({
      target: Late,
      propertyName: 'title',
      validator: { validate: (value: unknown) => value !== 'forbidden' },
    });
    expect(await errorsOf(Object.assign(new Late(), { title: 'forbidden' }))).toEqual(['title']);
  });

  it('keeps one answer per set of options, each the one class-validator gives', () => {
    class Options {
      @IsString({ always: true })
      a!: string;

      @IsInt()
      b!: number;
    }
    const storage = getMetadataStorage();
    // The memo is an own property of the storage: its class's method is class-validator's own.
    const unmemoised = (Object.getPrototypeOf(storage) as typeof storage).getTargetValidationMetadatas;
    const original = (schema: string, always: boolean, strictGroups: boolean) =>
      unmemoised.call(storage, Options, schema, always, strictGroups);
    const asked: [string, boolean, boolean][] = [
      ['', true, false],
      ['', false, false],
      [undefined as unknown as string, false, false],
      ['', false, true],
      ['', true, false],
      [undefined as unknown as string, false, false],
    ];
    for (let i = 0; i < 2; i++)
      for (const [schema, always, strictGroups] of asked)
        expect(storage.getTargetValidationMetadatas(Options, schema, always, strictGroups)).toEqual(
          original(schema, always, strictGroups),
        );
    // The same options, the same (kept) array.
    expect(storage.getTargetValidationMetadatas(Options, '', true, false)).toBe(
      storage.getTargetValidationMetadatas(Options, '', true, false),
    );
  });

  it('installs once, however often it is called', () => {
    expect(() => memoiseValidationMetadata()).not.toThrow();
  });
});
