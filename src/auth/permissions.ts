import type { Role } from './scopes.js';

/** What an operation requires: every scope listed, and at least the role (roles are hierarchical). */
export interface Permission {
  readonly scopes: readonly string[];
  readonly roles: readonly Role[];
}

const p = (scope: string, minimumRole: Role): Permission => ({ scopes: [scope], roles: [minimumRole] });

/**
 * One table for both doors: REST routes check it with PermissionGuard, tools declare it on
 * @McpTool, so a route and its tool can never disagree (docs/kadu.md §Scopes and roles).
 */
export const PERMISSIONS = {
  me: { scopes: [], roles: ['viewer'] } as Permission,
  usageRead: p('kadu.usage.read', 'viewer'),
  tasksRead: p('kadu.tasks.read', 'viewer'),
  tasksWrite: p('kadu.tasks.write', 'admin'),
  tasksRun: p('kadu.tasks.run', 'operator'),
  executionsRead: p('kadu.executions.read', 'viewer'),
  executionsWrite: p('kadu.executions.write', 'operator'),
  filesRead: p('kadu.files.read', 'viewer'),
  filesWrite: p('kadu.files.write', 'operator'),
  webhooksRead: p('kadu.webhooks.read', 'viewer'),
  webhooksWrite: p('kadu.webhooks.write', 'admin'),
  secretsRead: p('kadu.secrets.read', 'viewer'),
  secretsWrite: p('kadu.secrets.write', 'admin'),
  membersRead: p('kadu.members.read', 'viewer'),
  membersWrite: p('kadu.members.write', 'owner'),
} as const;
