import { type ConfigFactoryKeyHost, registerAs } from '@nestjs/config';
import { ConfigError } from '../config-error.js';
import { readEnv, type SchemaClass } from './env-schema.js';

/** One domain's settings: its schema (the variables it reads) and what the app makes of them. */
export interface SliceDefinition<T extends object> {
  /** The `registerAs` namespace: `ConfigService.get('<name>')`, token `CONFIGURATION(<name>)`. */
  readonly namespace: string;
  readonly schema: SchemaClass;
  /** The fields of AppConfig this slice holds (AppConfig is the slices side by side). */
  readonly keys: readonly (keyof T & string)[];
  /** The slice from an environment, or every problem the schema finds in it. */
  read(env: NodeJS.ProcessEnv): { value?: T; problems: string[] };
}

/** The slice as `@nestjs/config` registers it: `registerAs`'s factory (with `KEY`), plus its definition. */
export type ConfigSlice<T extends object> = (() => T) & ConfigFactoryKeyHost<T> & SliceDefinition<T>;

/**
 * Defines a slice. Its factory, as `registerAs` makes it, reads `process.env` (a module that imports
 * `ConfigModule.forFeature(slice)` on its own); the app registers every slice from the environment it
 * was started with instead (`KaduConfigModule`), under the same `KEY`, so several apps in one
 * process (tests, replicas) each have their own.
 */
export function defineSlice<E extends object, T extends object>(
  namespace: string,
  schema: SchemaClass<E>,
  keys: readonly (keyof T & string)[],
  build: (values: E, env: NodeJS.ProcessEnv) => T,
): ConfigSlice<T> {
  const read = (env: NodeJS.ProcessEnv) => {
    const { values, problems } = readEnv(schema, env);
    return problems.length ? { problems } : { value: build(values, env), problems };
  };
  const factory = registerAs(namespace, (): T => {
    const { value, problems } = read(process.env);
    if (!value) throw new ConfigError(problems);
    return value;
  });
  return Object.assign(factory, { namespace, schema, keys, read });
}
