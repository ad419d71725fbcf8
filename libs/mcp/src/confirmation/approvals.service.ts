import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpConfig } from '../mcp-config.js';
import { MCP_STATE_STORE, type McpStateStore } from '../state/mcp-state-store.js';
import { SealedText } from './sealed-text.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'consumed';

export interface ApprovalRecord {
  readonly id: string;
  /** The principal key the approval is bound to. */
  readonly principalKey: string;
  /** Who asked, as shown on the page. */
  readonly requester: string;
  /** The requester's organisation and role, when the host describes callers (pages.describeCaller). */
  readonly organisation?: string;
  readonly role?: string;
  readonly clientName: string;
  /** The OAuth client the token was issued to, when it says. */
  readonly clientId?: string;
  /** false when the host says the action cannot be undone; undefined when it does not say. */
  readonly undoable?: boolean;
  readonly undoNote?: string;
  readonly tool: string;
  readonly title: string;
  readonly digest: string;
  /** A bounded summary of the arguments (long values cut visibly, secrets redacted), as shown on the page. */
  readonly summary: Record<string, unknown>;
  readonly message: string;
  readonly expiresAt: number;
  readonly csrf: string;
}

export interface IssuedApproval {
  readonly id: string;
  readonly url: string;
  readonly expiresAt: string;
}

/** How long past its expiry a link still finds its record, so its page can say "expired" rather than "not valid". */
const EXPIRED_GRACE_MS = 60 * 60_000;

/** A principal already holds as many undecided approvals as allowed; nothing new is stored. */
export class TooManyPendingApprovals extends Error {
  constructor(
    readonly limit: number,
    readonly retryAfterSec: number,
  ) {
    super(`too many pending approvals (limit ${limit})`);
  }
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Approval records in the shared state store (docs/security.md §Confirmation): bound to principal,
 * tool, argument digest and client; reachable by a long random secret stored only as a hash;
 * decided once (pending → approved | rejected) and consumed once (approved → consumed), atomically,
 * whichever replica the page and the retry land on. While it is pending, a retry shows the same
 * link again, so a page the person has open keeps working: the secret is kept for that only
 * sealed under the state key, so the store alone never yields a working link.
 */
@Injectable()
export class ApprovalsService {
  readonly ttlMs: number;
  readonly maxPending: number;
  private readonly links: SealedText;

  constructor(
    private readonly config: McpConfig,
    @Inject(MCP_STATE_STORE) private readonly store: McpStateStore,
  ) {
    this.ttlMs = config.approvalTtlMs;
    this.maxPending = config.maxPendingApprovals;
    this.links = new SealedText(config.stateKey, 'mcp-approval-link');
  }

  /**
   * Stores a new approval (a summary of the arguments, never the arguments themselves) and
   * returns its link; TooManyPendingApprovals when the principal already holds `maxPending`
   * undecided ones within one approval lifetime.
   */
  async create(input: Omit<ApprovalRecord, 'id' | 'expiresAt' | 'csrf'>, baseUrl: string): Promise<IssuedApproval> {
    const count = await this.store.increment(this.pendingKey(input.principalKey), 1, this.ttlMs);
    if (count.value > this.maxPending) {
      await this.store.increment(this.pendingKey(input.principalKey), -1, this.ttlMs);
      throw new TooManyPendingApprovals(this.maxPending, Math.max(1, Math.ceil(count.ttlMs / 1000)));
    }
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + this.ttlMs;
    const record: ApprovalRecord = { ...input, id, expiresAt, csrf: randomBytes(24).toString('base64url') };
    const kept = this.ttlMs + EXPIRED_GRACE_MS;
    await this.store.put(`approval:${id}`, JSON.stringify(record), kept);
    await this.store.put(`approval-status:${id}`, 'pending', kept);
    await this.store.put(`approval-secret:${hashSecret(secret)}`, id, kept);
    await this.store.put(`approval-link-sealed:${id}`, this.links.seal(secret, id), kept);
    await this.store.put(this.lookupKey(input.principalKey, input.tool, input.digest), id, this.ttlMs);
    return this.issued(id, secret, baseUrl, expiresAt);
  }

  /**
   * The link of a pending approval, as it was first given: the retry of a model that lost it, or
   * that is impatient, shows the person the page they may already have open. Undefined when it can
   * no longer be shown (expired, or its secret is gone).
   */
  async reshow(record: ApprovalRecord, baseUrl: string): Promise<IssuedApproval | undefined> {
    if (record.expiresAt <= Date.now()) return undefined;
    const secret = this.links.open(await this.store.get(`approval-link-sealed:${record.id}`), record.id);
    if (!secret || (await this.store.get(`approval-secret:${hashSecret(secret)}`)) !== record.id) return undefined;
    return this.issued(record.id, secret, baseUrl, record.expiresAt);
  }

  /** The live approval for this exact call (principal, tool, arguments), if any. */
  async forCall(
    principalKey: string,
    tool: string,
    digest: string,
  ): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    const id = await this.store.get(this.lookupKey(principalKey, tool, digest));
    return id ? this.byId(id) : undefined;
  }

  /** The approval behind a link — also for a while after it expired (`expired: true`), so its page can say so. */
  async bySecret(
    secret: string,
  ): Promise<{ record: ApprovalRecord; status: ApprovalStatus; expired: boolean } | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(secret)) return undefined;
    const id = await this.store.get(`approval-secret:${hashSecret(secret)}`);
    const found = id ? await this.load(id) : undefined;
    return found && { ...found, expired: found.record.expiresAt <= Date.now() };
  }

  /** A live (unexpired) approval. */
  async byId(id: string): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    const found = await this.load(id);
    return found && found.record.expiresAt > Date.now() ? found : undefined;
  }

  private async load(id: string): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    const [raw, status] = await Promise.all([
      this.store.get(`approval:${id}`),
      this.store.get(`approval-status:${id}`),
    ]);
    if (!raw || !status) return undefined;
    return { record: JSON.parse(raw) as ApprovalRecord, status: status as ApprovalStatus };
  }

  /** The person's choice; only a pending approval can be decided, and only once. */
  async decide(record: ApprovalRecord, decision: 'approved' | 'rejected'): Promise<boolean> {
    if (record.expiresAt <= Date.now()) return false;
    const decided = await this.store.compareAndSet(`approval-status:${record.id}`, 'pending', decision);
    // No longer pending: it leaves the principal's count.
    if (decided) await this.store.increment(this.pendingKey(record.principalKey), -1, this.ttlMs);
    return decided;
  }

  /** Spends an approved approval: true for exactly one retry. */
  async consume(record: ApprovalRecord): Promise<boolean> {
    const ok = await this.store.compareAndSet(`approval-status:${record.id}`, 'approved', 'consumed');
    if (ok) await this.forget(record);
    return ok;
  }

  async forget(record: ApprovalRecord): Promise<void> {
    await this.store.delete(this.lookupKey(record.principalKey, record.tool, record.digest));
  }

  private lookupKey(principalKey: string, tool: string, digest: string): string {
    return `approval-for:${hashSecret(`${principalKey}\0${tool}\0${digest}`)}`;
  }

  private pendingKey(principalKey: string): string {
    return `approvals-pending:${hashSecret(principalKey)}`;
  }

  private issued(id: string, secret: string, baseUrl: string, expiresAt: number): IssuedApproval {
    return {
      id,
      url: `${baseUrl}/${this.config.path}/approvals/${secret}`,
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }
}
