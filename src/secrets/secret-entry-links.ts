import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from '../common/secret-box.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database, type Queryable } from '../db/database.js';

export const SECRET_VALUE_BOX = Symbol('SECRET_VALUE_BOX');

export const ENTRY_TTL_MINUTES = 15;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Where a link stands: only a `live` one shows the form and may set the value. */
export type EntryLinkState = 'live' | 'used' | 'replaced' | 'expired' | 'deleted';

/** What the entry page shows of a link: the secret, for whom, asked by whom, until when. */
export interface EntryLink {
  readonly state: EntryLinkState;
  readonly secret: { readonly name: string; readonly description: string; readonly version: number };
  readonly organisation: { readonly name: string; readonly slug: string };
  /** The member who created or rotated the secret (absent for links made before it was recorded). */
  readonly requester?: { readonly name: string; readonly email: string };
  readonly expiresAt: Date;
}

interface LinkRow {
  secret_name: string;
  secret_description: string;
  secret_version: number;
  secret_deleted_at: Date | null;
  org_name: string;
  org_slug: string;
  member_name: string | null;
  member_email: string | null;
  expires_at: Date;
  used_at: Date | null;
  canceled_at: Date | null;
}

function stateOf(row: LinkRow): EntryLinkState {
  if (row.secret_deleted_at) return 'deleted';
  if (row.used_at) return 'used';
  if (row.canceled_at) return 'replaced';
  return row.expires_at.getTime() <= Date.now() ? 'expired' : 'live';
}

/**
 * The single-use links to the page where a person types a secret's value. Only the newest link of
 * a secret works: issuing one cancels every earlier unused one in the same transaction, and the
 * caller holds the secret's row lock (SecretsService.rotate), so rotations on several replicas
 * at once still leave exactly one live link.
 */
@Injectable()
export class SecretEntryLinks {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SECRET_VALUE_BOX) private readonly box: SecretBox,
  ) {}

  async issue(tx: Queryable, orgId: string, secretId: string, memberId: string) {
    await tx.query(
      'update secret_entry_links set canceled_at = now() where secret_id = $1 and used_at is null and canceled_at is null',
      [secretId],
    );
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + ENTRY_TTL_MINUTES * 60_000);
    await tx.query(
      'insert into secret_entry_links (token_hash, org_id, secret_id, expires_at, requested_by) values ($1, $2, $3, $4, $5)',
      [hashToken(token), orgId, secretId, expires, memberId],
    );
    return {
      entry_url: `${this.config.publicBaseUrl}/secrets/entry/${token}`,
      entry_expires_at: expires.toISOString(),
    };
  }

  async find(token: string): Promise<EntryLink | undefined> {
    const [row] = await this.db.query<LinkRow>(
      `select s.name as secret_name, s.description as secret_description, s.version as secret_version,
              s.deleted_at as secret_deleted_at, o.name as org_name, o.slug as org_slug,
              m.name as member_name, m.email as member_email, l.expires_at, l.used_at, l.canceled_at
         from secret_entry_links l
         join secrets s on s.id = l.secret_id
         join organizations o on o.id = l.org_id
         left join members m on m.id = l.requested_by
        where l.token_hash = $1`,
      [hashToken(token)],
    );
    if (!row) return undefined;
    return {
      state: stateOf(row),
      secret: { name: row.secret_name, description: row.secret_description, version: row.secret_version },
      organisation: { name: row.org_name, slug: row.org_slug },
      ...(row.member_email
        ? { requester: { name: row.member_name ?? row.member_email, email: row.member_email } }
        : {}),
      expiresAt: row.expires_at,
    };
  }

  /** Spends a live link on the value: the secret's new version, or undefined when the link was no longer live. */
  async use(token: string, value: string): Promise<number | undefined> {
    return this.db.transaction(async (tx) => {
      const [link] = await tx.query<{ secret_id: string }>(
        `update secret_entry_links set used_at = now()
          where token_hash = $1 and used_at is null and canceled_at is null and expires_at > now()
          returning secret_id`,
        [hashToken(token)],
      );
      if (!link) return undefined;
      const [secret] = await tx.query<{ version: number }>(
        'update secrets set value_sealed = $2, version = version + 1, rotated_at = now(), updated_at = now() where id = $1 and deleted_at is null returning version',
        [link.secret_id, this.box.seal(value)],
      );
      return secret?.version;
    });
  }
}
