import { isRole, type Role } from '../auth/scopes.js';

/**
 * Who signed in at the development authorization server: an organisation, a person and the role
 * they act with — the three claims an `npm run token` token carries besides its scopes. The
 * provider knows an account by one string, so the three travel together as its account id.
 */
export interface DevAccount {
  readonly org: string;
  readonly user: string;
  readonly role: Role;
}

const ORG = /^[a-z0-9][a-z0-9-]{0,62}$/;
// A plain address: no spaces, no separator, at most 254 characters (RFC 5321's path limit).
const USER = /^[^\s|@]{1,64}@[^\s|@]{1,189}$/;

/** The account's problems in words a person can act on; empty when it is valid. */
export function accountProblems(input: {
  org?: unknown;
  user?: unknown;
  role?: unknown;
}): Record<'org' | 'user' | 'role', string | undefined> {
  return {
    org:
      typeof input.org === 'string' && ORG.test(input.org)
        ? undefined
        : 'Use lower-case letters, digits and dashes, such as acme.',
    user:
      typeof input.user === 'string' && USER.test(input.user)
        ? undefined
        : 'Enter an email address, such as ana@acme.test.',
    role: isRole(input.role) ? undefined : 'Choose a role.',
  };
}

export function accountId(account: DevAccount): string {
  return `${account.org}|${account.role}|${account.user}`;
}

export function parseAccountId(id: string): DevAccount | undefined {
  const [org, role, user, ...rest] = id.split('|');
  if (rest.length || !ORG.test(org ?? '') || !isRole(role) || !USER.test(user ?? '')) return undefined;
  return { org: org!, role, user: user! };
}
