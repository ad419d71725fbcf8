import fc from 'fast-check';
import { IsString, validateSync } from 'class-validator';
import { CONFIG_SLICES } from '../app-config.js';
import { Env, readEnv, type SchemaClass, settingsOf } from './env-schema.js';
import { port } from './env-kinds.js';
import { checkProperty } from '../../../test/support/properties.js';

/** What readEnv reported before it asked the checks directly: class-validator's answer, worded by it. */
function problemsOfValidateSync(schema: SchemaClass, env: NodeJS.ProcessEnv): string[] {
  const subject = Object.assign(new schema(), env);
  return validateSync(subject, { stopAtFirstError: true, forbidUnknownValues: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}),
  );
}

// Values that pass or fail the kinds' checks, plus any text at all.
const RAW = fc.oneof(
  fc.constantFrom('', '0', '1', '-1', 'x', 'true', 'off', '60/60', '1/0', '65536', 'http://a.test', 'info', 'loud'),
  fc.string(),
);

describe('readEnv', () => {
  it('reports exactly what validateSync reports, for every slice and any environment', async () => {
    for (const slice of CONFIG_SLICES) {
      const names = settingsOf(slice.schema).map((setting) => setting.name);
      if (names.length === 0) continue;
      const env = fc.dictionary(fc.constantFrom(...names), RAW);
      await checkProperty(
        `readEnv(${slice.namespace}) = validateSync`,
        fc.property(env, (drawn) => {
          expect(readEnv(slice.schema, drawn).problems).toEqual(problemsOfValidateSync(slice.schema, drawn));
        }),
        { numRuns: 200 },
      );
    }
  });

  it('still reports a rule that is not an @Env check', () => {
    class Mixed {
      @Env(port, { meaning: 'a port' })
      PORT_X!: number;

      @IsString()
      NAME_X!: string;
    }
    expect(readEnv(Mixed, { PORT_X: '80' }).problems).toEqual(['NAME_X must be a string']);
    expect(readEnv(Mixed, { PORT_X: 'x', NAME_X: 'n' }).problems).toEqual(["PORT_X must be an integer port, got 'x'"]);
  });

  it("still reports a parent schema's rules", () => {
    class Parent {
      @Env(port, { meaning: 'a port' })
      PARENT_PORT!: number;
    }
    class Child extends Parent {
      @Env(port, { meaning: 'a port' })
      CHILD_PORT!: number;
    }
    expect(readEnv(Child, { PARENT_PORT: 'x', CHILD_PORT: '1' }).problems).toEqual([
      "PARENT_PORT must be an integer port, got 'x'",
    ]);
  });
});
