import type { Request } from 'express';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import type { AppConfig } from '../config/app-config.js';
import type { Database } from '../db/database.js';
import { MEMBERSHIP_MAX_AGE_MS, OrgContextService } from '../orgs/org-context.service.js';
import { knownCaller } from './bearer.strategies.js';
import type { KaduPrincipal } from './kadu-principal.js';
import { impliedRoles, type Role } from './scopes.js';

const T0 = 1_700_000_000_000;
const principal = (subject: string): KaduPrincipal => ({
  subject,
  org: 'acme',
  role: 'owner',
  roles: impliedRoles('owner'),
  scopes: [],
});

/** The member rows the fake database answers with; a step may change them (a write outside this process). */
function database(roles: Map<string, Role | 'removed'>): Database {
  return {
    query: async (_sql: string, [, subject]: [string, string]) => {
      const role = roles.get(subject) ?? 'owner';
      return [
        {
          org_id: 'o1',
          slug: 'acme',
          plan_name: 'starter',
          monthly_budget: 1,
          max_concurrent_executions: 1,
          member_id: 'm-' + subject,
          member_deleted_at: role === 'removed' ? new Date(T0) : null,
          member_status: role === 'removed' ? 'removed' : 'active',
          member_role: role === 'removed' ? 'owner' : role,
          member_created_at: new Date(T0 - 10_000),
          member_updated_at: new Date(T0 - 5_000),
        },
      ];
    },
  } as unknown as Database;
}

/** A request on `socket` whose token this connection already proved (the verifier recalls `verdict`). */
function requestOn(socket: object, verdict: object, membership: OrgContextService): Request {
  const verifier = { recall: () => verdict };
  return {
    headers: { authorization: 'Bearer tok' },
    url: '/mcp',
    socket,
    app: { locals: { kaduAuth: { verifier, mcpAudience: 'mcp', apiAudience: 'api' }, kaduMembership: membership } },
  } as unknown as Request;
}

type Step =
  | { wait: number }
  | { ask: number; subject: string }
  | { read: string }
  | { change: string; role: Role | 'removed' }
  | { forgetAll: true };

const subjects = fc.constantFrom('a@x', 'b@x');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ wait: fc.integer({ min: 0, max: MEMBERSHIP_MAX_AGE_MS }) }),
  fc.record({ ask: fc.integer({ min: 0, max: 2 }), subject: subjects }),
  fc.record({ read: subjects }),
  fc.record({ change: subjects, role: fc.constantFrom<Role | 'removed'>('viewer', 'operator', 'owner', 'removed') }),
  fc.constant({ forgetAll: true as const }),
);

describe('knownCaller with the standing kept per connection', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('answers what effectiveNow answers at that instant, through reads, expiries and member changes', async () => {
    await checkProperty(
      'knownCaller = verdict + effectiveNow',
      fc.asyncProperty(fc.array(step, { maxLength: 50 }), async (steps) => {
        vi.setSystemTime(T0);
        const roles = new Map<string, Role | 'removed'>();
        const membership = new OrgContextService(database(roles), { devTokens: false } as AppConfig);
        const sockets = [{}, {}, {}];
        // One verdict per subject and connection, as TokenVerifier's memo keeps one per connection.
        const verdicts = new Map<string, { ok: true; principal: KaduPrincipal; issuedAt: number }>();
        const verdictOf = (socket: number, subject: string) => {
          const key = `${socket}:${subject}`;
          if (!verdicts.has(key))
            verdicts.set(key, { ok: true, principal: principal(subject), issuedAt: T0 / 1000 - 60 });
          return verdicts.get(key)!;
        };
        for (const s of steps) {
          if ('wait' in s) vi.advanceTimersByTime(s.wait);
          else if ('read' in s) await membership.effective(principal(s.read), T0 / 1000 - 60);
          else if ('change' in s) {
            roles.set(s.change, s.role);
            await membership.forget('acme', s.change);
          } else if ('forgetAll' in s) {
            // A change heard for everyone (MembershipChanges' reconnect): every record goes.
            (membership as unknown as { heard(change: unknown): void }).heard(undefined);
          } else {
            const verdict = verdictOf(s.ask, s.subject);
            const expected = membership.effectiveNow(verdict.principal, verdict.issuedAt);
            expect(knownCaller('mcp', requestOn(sockets[s.ask], verdict, membership))).toEqual(expected);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('stops admitting a connection as its member the moment the member is demoted or their record expires', async () => {
    const roles = new Map<string, Role | 'removed'>();
    const membership = new OrgContextService(database(roles), { devTokens: false } as AppConfig);
    const verdict = { ok: true, principal: principal('a@x'), issuedAt: T0 / 1000 - 60 };
    const req = requestOn({}, verdict, membership);
    expect(knownCaller('mcp', req)).toBeUndefined();
    await membership.effective(verdict.principal, verdict.issuedAt);
    expect(knownCaller('mcp', req)?.role).toBe('owner');
    roles.set('a@x', 'viewer');
    await membership.forget('acme', 'a@x');
    expect(knownCaller('mcp', req)).toBeUndefined();
    await membership.effective(verdict.principal, verdict.issuedAt);
    expect(knownCaller('mcp', req)?.role).toBe('viewer');
    vi.advanceTimersByTime(MEMBERSHIP_MAX_AGE_MS);
    expect(knownCaller('mcp', req)).toBeUndefined();
  });
});
