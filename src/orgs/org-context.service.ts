import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { capToStoredRole, type MembershipCheck, type Standing } from '../auth/membership.js';
import { ApiError } from '../common/api-error.js';
import { BoundedTtlCache } from '../common/bounded-ttl-cache.js';
import { newId } from '../common/ids.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { MEMBERSHIP_CHANGES, type MemberChanged, type MembershipChanges } from './membership-changes.js';

export interface OrgContext {
  readonly orgId: string;
  readonly slug: string;
  readonly memberId: string;
  readonly principal: KaduPrincipal;
  readonly plan: { name: string; monthly_budget: number; max_concurrent_executions: number };
}

interface Row {
  org_id: string;
  slug: string;
  plan_name: string;
  monthly_budget: number;
  max_concurrent_executions: number;
  member_id: string | null;
  member_deleted_at: Date | null;
  member_status: string | null;
  member_role: string | null;
  member_created_at: Date | null;
  member_updated_at: Date | null;
}

/**
 * How long this process trusts what it read of an organisation and a member. Changes made through
 * this process (roles, removals, new members) forget the entry at once, and with Redis every other
 * replica forgets it too on hearing the change (`MembershipChanges`); a change that is not heard
 * (Redis away, no Redis, a write made outside Kadu) is seen here at most this long after it was made.
 */
export const MEMBERSHIP_MAX_AGE_MS = 5_000;
/** Distinct (organisation, member) pairs kept per process. */
export const MEMBERSHIP_MAX_ENTRIES = 10_000;

export const DEFAULT_PLAN = { name: 'starter', monthly_budget: 1000, max_concurrent_executions: 2 };

/**
 * The organisation and member behind a verified principal — from the token only. In development
 * mode, orgs and members named in a valid development token are created on first use.
 *
 * What was read is kept per process for MEMBERSHIP_MAX_AGE_MS (one query per member every few
 * seconds instead of one per call); `forget` drops an entry when this process changes the member.
 */
@Injectable()
export class OrgContextService implements MembershipCheck, OnModuleInit, OnModuleDestroy {
  private readonly rows = new BoundedTtlCache<Row | null>(MEMBERSHIP_MAX_ENTRIES);
  /** Moves on every change heard: a row read while a change was heard is used once, not kept. */
  private generation = 0;

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() @Inject(MEMBERSHIP_CHANGES) private readonly changes?: MembershipChanges,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.changes?.subscribe((change) => this.heard(change));
  }

  async onModuleDestroy(): Promise<void> {
    await this.changes?.close();
  }

  async of(principal: KaduPrincipal): Promise<OrgContext> {
    let row = await this.load(principal);
    if ((!row || !row.member_id) && this.config.devTokens) {
      await this.provision(principal, row?.org_id);
      // Read afresh: a concurrent request may have cached the absence while this one provisioned.
      const generation = this.generation;
      row = await this.query(principal);
      if (generation === this.generation)
        this.rows.set(keyOf(principal.org, principal.subject), row ?? null, Date.now() + MEMBERSHIP_MAX_AGE_MS);
    }
    if (!row || !row.member_id)
      throw new ApiError(403, 'unknown_member', 'Unknown member', 'This account is not a member of the organisation');
    if (row.member_deleted_at || row.member_status !== 'active') {
      throw new ApiError(403, 'member_removed', 'Member removed', 'This account was removed from the organisation');
    }
    return {
      orgId: row.org_id,
      slug: row.slug,
      memberId: row.member_id,
      principal,
      plan: {
        name: row.plan_name,
        monthly_budget: row.monthly_budget,
        max_concurrent_executions: row.max_concurrent_executions,
      },
    };
  }

  /** The token's principal, its role capped by a change of the member's role made after the token was issued. */
  async effective(principal: KaduPrincipal, issuedAt: number | undefined): Promise<KaduPrincipal> {
    return cappedBy(await this.load(principal), principal, issuedAt);
  }

  effectiveNow(principal: KaduPrincipal, issuedAt: number | undefined): KaduPrincipal | undefined {
    const cached = this.rows.get(keyOf(principal.org, principal.subject));
    return cached === undefined ? undefined : cappedBy(cached ?? undefined, principal, issuedAt);
  }

  standingNow(principal: KaduPrincipal, issuedAt: number | undefined, now: number): Standing | undefined {
    const key = keyOf(principal.org, principal.subject);
    const entry = this.rows.entry(key, now);
    if (!entry) return undefined;
    const rows = this.rows;
    // Every change heard (heard(): delete or clear) and every new read (set) replaces the entry.
    return {
      caller: cappedBy(entry.value ?? undefined, principal, issuedAt),
      holds: (at) => rows.holds(key, entry, at),
    };
  }

  /**
   * Drops what this process knows of a member (after changing them, or creating them) and tells
   * the other replicas to do the same; resolves once told (never rejects: the age bound stays).
   */
  async forget(orgSlug: string, email: string): Promise<void> {
    this.heard({ org: orgSlug, email });
    await this.changes?.publish(orgSlug, email);
  }

  private heard(change: MemberChanged): void {
    this.generation++;
    if (change) this.rows.delete(keyOf(change.org, change.email));
    else this.rows.clear();
  }

  private async load(principal: KaduPrincipal): Promise<Row | undefined> {
    const key = keyOf(principal.org, principal.subject);
    const cached = this.rows.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const generation = this.generation;
    const row = await this.query(principal);
    // A change heard while the query ran may postdate what it read: answer with it, keep nothing.
    if (generation === this.generation) this.rows.set(key, row ?? null, Date.now() + MEMBERSHIP_MAX_AGE_MS);
    return row;
  }

  private async query(principal: KaduPrincipal): Promise<Row | undefined> {
    const [row] = await this.db.query<Row>(
      `select o.id as org_id, o.slug, o.plan_name, o.monthly_budget, o.max_concurrent_executions,
              m.id as member_id, m.deleted_at as member_deleted_at, m.status as member_status,
              m.role as member_role, m.created_at as member_created_at, m.updated_at as member_updated_at
         from organizations o
         left join members m on m.org_id = o.id and m.email = $2
        where o.slug = $1
        order by m.deleted_at nulls first
        limit 1`,
      [principal.org, principal.subject],
    );
    return row;
  }

  private async provision(principal: KaduPrincipal, existingOrgId?: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      let orgId = existingOrgId;
      if (!orgId) {
        await tx.query(
          `insert into organizations (id, slug, name, plan_name, monthly_budget, max_concurrent_executions)
           values ($1, $2, $2, $3, $4, $5) on conflict (slug) do nothing`,
          [
            newId(),
            principal.org,
            DEFAULT_PLAN.name,
            DEFAULT_PLAN.monthly_budget,
            DEFAULT_PLAN.max_concurrent_executions,
          ],
        );
        [{ id: orgId }] = await tx.query<{ id: string }>('select id from organizations where slug = $1', [
          principal.org,
        ]);
      }
      await tx.query(
        `insert into members (id, org_id, email, name, role, status)
         select $1, $2, $3, $4, $5, 'active'
          where not exists (select 1 from members where org_id = $2 and email = $3)`,
        [newId(), orgId, principal.subject, principal.subject.split('@')[0], principal.role],
      );
    });
  }
}

/** The principal as the member's stored row allows it (capToStoredRole). */
function cappedBy(row: Row | undefined, principal: KaduPrincipal, issuedAt: number | undefined): KaduPrincipal {
  if (!row?.member_id || row.member_deleted_at || !row.member_role) return principal;
  const changed =
    row.member_updated_at && row.member_created_at && row.member_updated_at.getTime() > row.member_created_at.getTime();
  return capToStoredRole(
    principal,
    { role: row.member_role, changedAt: changed ? row.member_updated_at!.getTime() : undefined },
    issuedAt,
  );
}

const keyOf = (orgSlug: string, email: string): string => `${orgSlug}\n${email}`;
