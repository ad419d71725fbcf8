/** Kadu's OAuth scopes (dotted, Kobana style) and roles (docs/kadu.md §Scopes and roles). */
export const ROLES = ['viewer', 'operator', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const READ_SCOPES = [
  'kadu.tasks.read',
  'kadu.executions.read',
  'kadu.files.read',
  'kadu.webhooks.read',
  'kadu.secrets.read',
  'kadu.members.read',
  'kadu.usage.read',
] as const;

const OPERATOR_SCOPES = ['kadu.tasks.run', 'kadu.executions.write', 'kadu.files.write'] as const;
const ADMIN_SCOPES = ['kadu.tasks.write', 'kadu.webhooks.write', 'kadu.secrets.write'] as const;
const OWNER_SCOPES = ['kadu.members.write'] as const;

export const ALL_SCOPES: readonly string[] = [...READ_SCOPES, ...OPERATOR_SCOPES, ...ADMIN_SCOPES, ...OWNER_SCOPES];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** A role and every role below it: an admin is also an operator and a viewer. */
export function impliedRoles(role: Role): Role[] {
  return ROLES.slice(0, ROLES.indexOf(role) + 1);
}

/** The scopes a role may hold; a token's scopes are capped by them. */
export function scopesForRole(role: Role): string[] {
  const scopes: string[] = [...READ_SCOPES];
  if (ROLES.indexOf(role) >= 1) scopes.push(...OPERATOR_SCOPES);
  if (ROLES.indexOf(role) >= 2) scopes.push(...ADMIN_SCOPES);
  if (ROLES.indexOf(role) >= 3) scopes.push(...OWNER_SCOPES);
  return scopes;
}
