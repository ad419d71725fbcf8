/**
 * The kinds of value an environment variable can hold: how a raw string is checked (one problem
 * line naming the variable, the wording start-up has always printed), what it becomes, and how the
 * configuration table (docs/operators/configuration.md) describes the values allowed.
 * `check` sees the whole environment for the rules that tie two variables together.
 */
export interface EnvKind<T> {
  /** The values allowed, as the configuration table shows them (Markdown). */
  readonly allowed: string;
  check?(raw: string | undefined, name: string, env: NodeJS.ProcessEnv): string | undefined;
  parse(raw: string | undefined): T | undefined;
}

export type RateBudget = { points: number; durationSec: number } | false;

/** Unset and empty are the same: the default applies. */
const unset = (raw: string | undefined): raw is undefined | '' => raw === undefined || raw === '';

/** Any string; empty means unset. */
export const text: EnvKind<string> = { allowed: 'text', parse: (raw) => (unset(raw) ? undefined : raw) };

/** Any string, kept as given even when empty (a prefix may be ''). */
export const prefix: EnvKind<string> = { allowed: 'text (may be empty)', parse: (raw) => raw };

/** `true` turns it on; anything else (or nothing) leaves it off. */
export const flag: EnvKind<boolean> = { allowed: '`true`, `false`', parse: (raw) => raw === 'true' };

export const absoluteUrl: EnvKind<string> = {
  allowed: 'absolute URL',
  check: (raw, name) => (unset(raw) || URL.canParse(raw) ? undefined : `${name} must be an absolute URL, got '${raw}'`),
  parse: text.parse,
};

export const port: EnvKind<number> = {
  allowed: 'integer 0–65535 (0: any free port)',
  check: (raw, name) => {
    if (unset(raw)) return undefined;
    const n = Number(raw);
    return Number.isInteger(n) && n >= 0 && n <= 65535 ? undefined : `${name} must be an integer port, got '${raw}'`;
  },
  parse: (raw) => (unset(raw) ? undefined : Number(raw)),
};

export const nonNegative: EnvKind<number> = {
  allowed: 'number ≥ 0',
  check: (raw, name) => {
    if (unset(raw)) return undefined;
    const n = Number(raw);
    return Number.isFinite(n) && n >= 0 ? undefined : `${name} must be a non-negative number, got '${raw}'`;
  },
  parse: port.parse,
};

/** A duration that must not be zero (a timer of 0 ms would spin). */
export const milliseconds: EnvKind<number> = {
  allowed: 'milliseconds ≥ 1',
  check: (raw, name, env) =>
    nonNegative.check!(raw, name, env) ??
    (!unset(raw) && Number(raw) < 1 ? `${name} must be at least 1 (milliseconds), got '${raw}'` : undefined),
  parse: port.parse,
};

export const count: EnvKind<number> = {
  allowed: 'whole number ≥ 1',
  check: (raw, name, env) =>
    nonNegative.check!(raw, name, env) ??
    (!unset(raw) && (Number(raw) < 1 || !Number.isInteger(Number(raw)))
      ? `${name} must be a whole number of at least 1, got '${raw}'`
      : undefined),
  parse: port.parse,
};

/** A rate budget: `points/seconds`, or `off`. An empty value is malformed, not unset. */
export const budget: EnvKind<RateBudget> = {
  allowed: '`points/seconds`, `off`',
  check: (raw, name) => {
    if (raw === undefined || raw === 'off') return undefined;
    const m = /^(\d+)\/(\d+)$/.exec(raw);
    return m && Number(m[1]) >= 1 && Number(m[2]) >= 1
      ? undefined
      : `${name} must be "points/seconds" or "off", got '${raw}'`;
  },
  parse: (raw) => {
    if (raw === undefined) return undefined;
    if (raw === 'off') return false;
    const [points, seconds] = raw.split('/');
    return { points: Number(points), durationSec: Number(seconds) };
  },
};

/** One of a few words; `problem` words the refusal as start-up always has for that variable. */
export function oneOf<T extends string>(values: readonly T[], problem: (got: string) => string): EnvKind<T> {
  return {
    allowed: values.map((v) => `\`${v}\``).join(', '),
    check: (raw) => (raw === undefined || (values as readonly string[]).includes(raw) ? undefined : problem(raw)),
    parse: (raw) => raw as T | undefined,
  };
}

/** A kind with an extra rule over the whole environment (checked after the kind's own). */
export function withRule<T>(
  kind: EnvKind<T>,
  rule: (raw: string | undefined, env: NodeJS.ProcessEnv) => string | undefined,
  allowed = kind.allowed,
): EnvKind<T> {
  return {
    allowed,
    check: (raw, name, env) => kind.check?.(raw, name, env) ?? rule(raw, env),
    parse: kind.parse,
  };
}
