import type { McpCallerProjection } from './mcp-param.decorators.js';

/** Design types no principal (an object with `subject` and `scopes`) can be. */
const NOT_A_PRINCIPAL: readonly unknown[] = [
  String,
  Number,
  Boolean,
  Symbol,
  BigInt,
  Array,
  Function,
  Date,
  RegExp,
  Map,
  Set,
  Promise,
];

/** The design type each known claim has (McpPrincipal); other claims are the app's and are not checked. */
const CLAIM_TYPES: Readonly<Record<string, readonly unknown[]>> = {
  subject: [String],
  clientId: [String],
  clientName: [String],
  scopes: [Array],
  roles: [Array],
  expiresAt: [Number],
};

/**
 * Why `@McpCaller(project)` cannot fill a parameter of design type `type`, or undefined when it
 * can. `@McpCaller() owner: string` compiled and booted, and the method got an object where it
 * expected an id (issue 28): refused at bootstrap. An interface or type alias is `Object` at run
 * time and passes; without emitted metadata (`type` undefined) nothing can be checked.
 */
export function callerTypeMismatch(project: McpCallerProjection | undefined, type: unknown): string | undefined {
  if (type === undefined || type === Object || typeof project === 'function') return undefined;
  const name = (type as { name?: string }).name ?? String(type);
  if (project === undefined) {
    if (!NOT_A_PRINCIPAL.includes(type)) return undefined;
    return `@McpCaller() gives the whole principal, which a ${name} cannot hold: project what the method takes, e.g. @McpCaller('subject')`;
  }
  const expected = CLAIM_TYPES[project];
  if (!expected || expected.includes(type)) return undefined;
  const wanted = (expected[0] as { name: string }).name;
  return `@McpCaller('${project}') gives a ${wanted}, which a parameter of type ${name} does not take`;
}
