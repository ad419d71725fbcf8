import 'reflect-metadata';
import { ValidationPipe, type ArgumentMetadata, type Type, type ValidationPipeOptions } from '@nestjs/common';
import * as cv from 'class-validator';
import { McpValidationPipe } from './mcp-validation.pipe.js';
import { RememberedMetadata } from './remembered-metadata.js';

/**
 * The quick path's view of class-validator's storage (remembered-metadata.ts): the same rules as the
 * storage's own lookup, never stale once rules are added, and the storage itself left untouched.
 */
const storage = cv.getMetadataStorage();
const body = (metatype: Type): ArgumentMetadata => ({ type: 'body', metatype });
const CLOSED: ValidationPipeOptions = { transform: true, whitelist: true, forbidNonWhitelisted: true };

/** Whether each pipe accepts the input: McpValidationPipe's quick path, then Nest's own. */
async function verdicts(options: ValidationPipeOptions, metatype: Type, input: object) {
  const accepts = async (pipe: ValidationPipe) => {
    try {
      await pipe.transform({ ...input }, body(metatype));
      return true;
    } catch {
      return false;
    }
  };
  return { ours: await accepts(new McpValidationPipe(options)), nest: await accepts(new ValidationPipe(options)) };
}

describe('RememberedMetadata', () => {
  it('answers what the storage answers, for a class, its subclass and a class without rules', () => {
    class Base {
      @cv.IsString() a!: string;
    }
    class Child extends Base {
      @cv.IsInt() b!: number;
    }
    class Bare {}
    const view = RememberedMetadata.of(storage)!;
    for (const target of [Base, Child, Bare, Base, Child])
      for (const [always, strict] of [
        [false, false],
        [true, false],
        [false, true],
      ] as const) {
        const mine = view.getTargetValidationMetadatas(target, undefined, always, strict);
        expect(mine).toEqual(storage.getTargetValidationMetadatas(target, undefined!, always, strict));
        expect(view.groupByPropertyName(mine)).toEqual(storage.groupByPropertyName(mine));
      }
  });

  it('asks the storage anew once a rule is added to the class or to an ancestor', async () => {
    class Parent {
      @cv.IsString() name!: string;
    }
    class Input extends Parent {
      @cv.IsInt() count!: number;
    }
    expect(await verdicts(CLOSED, Input, { name: 'x', count: 3 })).toEqual({ ours: true, nest: true });
    // A rule added to the class itself after its rules were remembered…
    cv.Max(2)(Input.prototype, 'count');
    expect(await verdicts(CLOSED, Input, { name: 'x', count: 3 })).toEqual({ ours: false, nest: false });
    // …and one added to its ancestor.
    cv.MaxLength(0)(Parent.prototype, 'name');
    expect(await verdicts(CLOSED, Input, { name: 'x', count: 1 })).toEqual({ ours: false, nest: false });
  });

  it('asks the storage anew once a class without rules gets its first, or an ancestor does', async () => {
    class Ancestor {}
    class Plain extends Ancestor {
      tag?: string;
    }
    const input = { tag: 'x' };
    const options = { transform: true, forbidUnknownValues: true };
    const view = RememberedMetadata.of(storage)!;
    const sameRules = () =>
      expect(view.getTargetValidationMetadatas(Plain, undefined, false, false)).toEqual(
        storage.getTargetValidationMetadatas(Plain, undefined!, false, false),
      );
    // No rules at all: both refuse the unknown value.
    expect(await verdicts(options, Plain, input)).toEqual({ ours: false, nest: false });
    sameRules();
    cv.IsString()(Plain.prototype, 'tag');
    sameRules();
    expect(await verdicts(options, Plain, input)).toEqual({ ours: true, nest: true });
    cv.IsDefined()(Ancestor.prototype, 'missing');
    sameRules();
    expect(await verdicts(options, Plain, input)).toEqual({ ours: false, nest: false });
  });

  it('leaves groups to the storage, and gives the same verdicts as ValidationPipe under groups', async () => {
    class Grouped {
      @cv.IsString({ groups: ['a'] }) a?: unknown;
      @cv.IsInt({ groups: ['b'] }) b?: unknown;
      @cv.IsString({ always: true }) c?: unknown;
    }
    const sets: ValidationPipeOptions[] = [
      { transform: true, groups: ['a'] },
      { transform: true, groups: ['b'], always: true },
      { transform: true, strictGroups: true },
      { transform: true, always: true },
      { transform: true },
    ];
    for (const options of sets)
      for (const input of [{ a: 1, b: 'x', c: 's' }, { a: 's', b: 2, c: 's' }, { a: 's', b: 2, c: 3 }, { c: 's' }]) {
        const { ours, nest } = await verdicts(options, Grouped, input);
        expect({ options, input, ours }).toEqual({ options, input, ours: nest });
      }
  });

  it('does not change class-validator’s storage', async () => {
    const methods = {
      lookup: storage.getTargetValidationMetadatas,
      group: storage.groupByPropertyName,
      add: storage.addValidationMetadata,
    };
    class Touched {
      @cv.IsString() s!: string;
    }
    expect(await verdicts(CLOSED, Touched, { s: 'x' })).toEqual({ ours: true, nest: true });
    expect({
      lookup: storage.getTargetValidationMetadatas,
      group: storage.groupByPropertyName,
      add: storage.addValidationMetadata,
    }).toEqual(methods);
    expect(Object.keys(storage)).toEqual(['validationMetadatas', 'constraintMetadatas']);
  });

  it('stands aside for a storage that does not keep its rules in a Map', () => {
    expect(RememberedMetadata.of({} as never)).toBeNull();
  });
});
