import { getMetadataStorage, registerDecorator, validateSync } from 'class-validator';
import type { EnvKind } from './env-kinds.js';

/** What an operator reads about one variable: the configuration table's row. */
export interface SettingDoc {
  readonly name: string;
  /** The default as typed in the environment, or how it is derived (Markdown). */
  readonly defaultText: string;
  readonly allowed: string;
  readonly meaning: string;
}

interface Setting extends SettingDoc {
  readonly kind: EnvKind<unknown>;
  /** The raw default, parsed like a value that was set. */
  readonly default?: string;
}

export interface SettingOptions {
  readonly meaning: string;
  /** The default, written as an operator would set it. */
  readonly default?: string;
  /** The default when it is derived from other settings (shown instead of `default`). */
  readonly defaultText?: string;
  /** The values allowed, when the kind's own description says too little. */
  readonly allowed?: string;
}

export type SchemaClass<T = object> = new () => T;

const SETTINGS = new Map<Function, Setting[]>();

/** The name of the class-validator constraint `@Env` registers (one per checked variable). */
const ENV_CONSTRAINT = 'kaduEnv';

/**
 * Declares one environment variable on a schema class: the property is named after the variable
 * and typed as the value the app uses. The kind's check becomes a class-validator constraint, so
 * `validateSync` (`readEnv`) is the one validation; the rest is what the configuration table shows.
 */
export function Env<T>(kind: EnvKind<T>, options: SettingOptions): PropertyDecorator {
  return (prototype, property) => {
    const target = prototype.constructor;
    const name = String(property);
    const settings = SETTINGS.get(target) ?? [];
    SETTINGS.set(target, settings);
    const defaultText = options.defaultText ?? (options.default === undefined ? '—' : `\`${options.default}\``);
    settings.push({
      name,
      kind,
      default: options.default,
      defaultText,
      allowed: options.allowed ?? kind.allowed,
      meaning: options.meaning,
    });
    const check = kind.check;
    if (!check) return;
    registerDecorator({
      target,
      propertyName: name,
      name: ENV_CONSTRAINT,
      validator: {
        validate: (value: unknown, args) => check(raw(value), name, args!.object as NodeJS.ProcessEnv) === undefined,
        defaultMessage: (args) => check(raw(args!.value), name, args!.object as NodeJS.ProcessEnv) ?? name,
      },
    });
  };
}

/** Environment values are strings; anything else (a test's env object) is read as unset. */
const raw = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The variables a schema class declares, in declaration order. */
export function settingsOf(schema: SchemaClass): readonly SettingDoc[] {
  return SETTINGS.get(schema) ?? [];
}

/**
 * Checks the variables a schema declares (every problem, one line each, in declaration order) and
 * reads them: each variable's value, or its default, as its kind makes it.
 */
export function readEnv<T extends object>(
  schema: SchemaClass<T>,
  env: NodeJS.ProcessEnv,
): { values: T; problems: string[] } {
  const subject = Object.assign(new schema(), env);
  const problems = passesEveryCheck(schema, subject)
    ? []
    : validateSync(subject, { stopAtFirstError: true, forbidUnknownValues: false }).flatMap((error) =>
        Object.values(error.constraints ?? {}),
      );
  const values = {} as Record<string, unknown>;
  for (const setting of SETTINGS.get(schema) ?? []) {
    const given = setting.kind.parse(raw(env[setting.name]));
    values[setting.name] = given ?? (setting.default === undefined ? undefined : setting.kind.parse(setting.default));
  }
  return { values: values as T, problems };
}

/**
 * Whether `validateSync(subject)` would find no problem, asked of the kinds' checks directly: the
 * same checks with the same arguments, without class-validator's executor. Kept out of it, the
 * schema classes' constraints (dozens, one class each) never reach the executor's call sites that
 * every tool call's validation shares, which then stay faster (bench/RESULTS.md, issue 32). Only
 * for a schema whose every rule is an `@Env` check of its own: anything else is asked of
 * `validateSync`, which also words the problems when a check fails.
 */
function passesEveryCheck(schema: SchemaClass, subject: object): boolean {
  if (Object.getPrototypeOf(schema) !== Function.prototype) return false;
  const settings = SETTINGS.get(schema) ?? [];
  const rules = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  const checked = settings.filter((setting) => setting.kind.check);
  if (rules.length !== checked.length || rules.some((rule) => rule.name !== ENV_CONSTRAINT)) return false;
  const values = subject as NodeJS.ProcessEnv;
  return checked.every((setting) => setting.kind.check!(raw(values[setting.name]), setting.name, values) === undefined);
}
