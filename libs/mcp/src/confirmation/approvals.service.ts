import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { McpConfig } from '../mcp-config.js';
import { MCP_STATE_STORE, type McpStateStore } from '../state/mcp-state-store.js';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'consumed';

export interface ApprovalRecord {
  readonly id: string;
  /** The principal key the approval is bound to. */
  readonly principalKey: string;
  /** Who asked, as shown on the page. */
  readonly requester: string;
  readonly clientName: string;
  readonly tool: string;
  readonly title: string;
  readonly digest: string;
  /** The arguments, secrets redacted, as shown on the page. */
  readonly args: Record<string, unknown>;
  readonly message: string;
  readonly expiresAt: number;
  readonly csrf: string;
}

export interface IssuedApproval {
  readonly id: string;
  readonly url: string;
  readonly expiresAt: string;
}

const DEFAULT_TTL_MS = 10 * 60_000;
const SENSITIVE = /secret|password|passphrase|token|credential|api[_-]?key|private|value/i;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Approval records in the shared state store (security.md §Confirmation): bound to principal,
 * tool, argument digest and client; reachable by a long random secret stored only as a hash;
 * decided once (pending → approved | rejected) and consumed once (approved → consumed), atomically,
 * whichever replica the page and the retry land on.
 */
@Injectable()
export class ApprovalsService {
  readonly ttlMs: number;

  constructor(
    private readonly config: McpConfig,
    @Inject(MCP_STATE_STORE) private readonly store: McpStateStore,
  ) {
    this.ttlMs = config.options.approvals?.ttlMs ?? DEFAULT_TTL_MS;
  }

  async create(input: Omit<ApprovalRecord, 'id' | 'expiresAt' | 'csrf' | 'args'> & { args: Record<string, unknown> }, baseUrl: string): Promise<IssuedApproval> {
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = Date.now() + this.ttlMs;
    const record: ApprovalRecord = { ...input, id, expiresAt, csrf: randomBytes(24).toString('base64url'), args: redact(input.args) };
    await this.store.put(`approval:${id}`, JSON.stringify(record), this.ttlMs);
    await this.store.put(`approval-status:${id}`, 'pending', this.ttlMs);
    await this.store.put(`approval-secret:${hashSecret(secret)}`, id, this.ttlMs);
    await this.store.put(this.lookupKey(input.principalKey, input.tool, input.digest), id, this.ttlMs);
    return { id, url: `${baseUrl}/${this.config.path}/approvals/${secret}`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The live approval for this exact call (principal, tool, arguments), if any. */
  async forCall(principalKey: string, tool: string, digest: string): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    const id = await this.store.get(this.lookupKey(principalKey, tool, digest));
    return id ? this.byId(id) : undefined;
  }

  async bySecret(secret: string): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(secret)) return undefined;
    const id = await this.store.get(`approval-secret:${hashSecret(secret)}`);
    return id ? this.byId(id) : undefined;
  }

  async byId(id: string): Promise<{ record: ApprovalRecord; status: ApprovalStatus } | undefined> {
    const [raw, status] = await Promise.all([this.store.get(`approval:${id}`), this.store.get(`approval-status:${id}`)]);
    if (!raw || !status) return undefined;
    const record = JSON.parse(raw) as ApprovalRecord;
    return record.expiresAt > Date.now() ? { record, status: status as ApprovalStatus } : undefined;
  }

  /** The person's choice; only a pending approval can be decided, and only once. */
  decide(id: string, decision: 'approved' | 'rejected'): Promise<boolean> {
    return this.store.compareAndSet(`approval-status:${id}`, 'pending', decision);
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
}

export function redact(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SENSITIVE.test(k) ? '[redacted]' : v !== null && typeof v === 'object' && !Array.isArray(v) ? redact(v as Record<string, unknown>) : v,
    ]),
  );
}
