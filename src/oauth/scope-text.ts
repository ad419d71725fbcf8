import { ROLES, type Role, scopesForRole } from '../auth/scopes.js';

/** What each Kadu scope lets a client do, in the words the consent page uses. */
export const SCOPE_TEXT: Readonly<Record<string, string>> = {
  'kadu.tasks.read': 'See tasks and their settings',
  'kadu.tasks.write': 'Create, change and delete tasks',
  'kadu.tasks.run': 'Run tasks (this spends cost units)',
  'kadu.executions.read': 'See executions and their steps',
  'kadu.executions.write': 'Continue and cancel executions',
  'kadu.files.read': 'See and download files',
  'kadu.files.write': 'Upload and delete files',
  'kadu.webhooks.read': 'See webhooks and their deliveries',
  'kadu.webhooks.write': 'Create, change and delete webhooks; send deliveries again',
  'kadu.secrets.read': 'See the names of secrets (never their values)',
  'kadu.secrets.write': 'Create, rotate and delete secrets',
  'kadu.members.read': 'See the members of the organisation',
  'kadu.members.write': "Change members' roles and remove members",
  'kadu.usage.read': 'See usage and the monthly budget',
  offline_access: 'Stay connected when you are away (a refresh token)',
  openid: 'Know who you are',
};

/** The lowest role whose tokens may carry the scope (roles are hierarchical). */
export function minimumRole(scope: string): Role | undefined {
  return ROLES.find((role) => scopesForRole(role).includes(scope));
}
