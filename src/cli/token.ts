import { parseArgs } from 'node:util';
import { issueDevToken } from '../auth/dev-token.js';
import { isRole, ALL_SCOPES } from '../auth/scopes.js';
import { loadConfig } from '../config/app-config.js';
import { describeValue } from '@kobana/nest-mcp';

const USAGE =
  'usage: npm run -s token -- --org <slug> --user <email> --role <viewer|operator|admin|owner> [--scopes "<space separated>"] [--ttl <seconds>] [--aud mcp|api]';

/** Prints a development access token for the local app on stdout — and nothing else. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      user: { type: 'string' },
      role: { type: 'string' },
      scopes: { type: 'string' },
      ttl: { type: 'string' },
      aud: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.error(USAGE);
    return;
  }
  const { org, user, role } = values;
  if (!org || !user || !role) throw new Error(USAGE);
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(org))
    throw new Error('--org must be a slug: lower-case letters, digits and dashes');
  if (!isRole(role)) throw new Error('--role must be one of viewer, operator, admin, owner');
  const scopes = values.scopes?.split(/\s+/).filter(Boolean);
  const unknown = scopes?.filter((s) => !ALL_SCOPES.includes(s)) ?? [];
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}`);
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0))
    throw new Error('--ttl must be a positive number of seconds');
  if (values.aud !== undefined && values.aud !== 'mcp' && values.aud !== 'api')
    throw new Error('--aud must be mcp or api');
  const token = await issueDevToken(loadConfig(), {
    org,
    user,
    role,
    scopes,
    ttlSeconds: ttl,
    audience: values.aud as 'mcp' | 'api' | undefined,
  });
  process.stdout.write(`${token}\n`);
}

main().catch((error: unknown) => {
  console.error(describeValue(error));
  process.exit(2);
});
