import {
  HEADERLESS_LEGACY_REVISION,
  isLegacyRevision,
  isModernRevision,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  ErrorCode,
} from './constants.js';
import { describeValue } from './client-values.js';
import { isPlainObject, type JsonObject, type JsonRpcMessage } from './jsonrpc.js';
import { headerMismatch, reject, type Rejection, unsupportedVersion } from './rejection.js';

export interface ClientInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

export interface ModernEra {
  readonly era: 'modern';
  readonly revision: string;
  readonly clientCapabilities: JsonObject;
  readonly clientInfo?: ClientInfo;
}

export interface LegacyEra {
  readonly era: 'legacy';
  /** The revision in use: the header's, or 2025-03-26 when absent; for `initialize`, the negotiated one. */
  readonly revision: string;
}

export type EraDecision = ModernEra | LegacyEra;

/**
 * Rung 11 of docs/ladder.md §2. The era is read from the body: a request is 2026-era iff `params._meta`
 * holds the key `io.modelcontextprotocol/protocolVersion` (any value). `_meta` alone does not make
 * a request modern: 2025 requests may carry `_meta.progressToken`. The header is a cross-check.
 */
export function classifyEra(
  message: JsonRpcMessage,
  versionHeader: string | undefined,
  supported: readonly string[],
): EraDecision | Rejection {
  const id = message.id ?? null;
  const meta = message.params?._meta;
  const header = versionHeader?.trim() || undefined;

  if (isPlainObject(meta) && META_PROTOCOL_VERSION in meta) {
    const envelope = readEnvelope(meta);
    if (typeof envelope === 'string') {
      return reject('envelope_invalid', 400, ErrorCode.InvalidParams, `Invalid params: ${envelope}`, id);
    }
    if (header !== undefined && header !== envelope.revision) {
      return headerMismatch(
        id,
        `MCP-Protocol-Version header '${header}' does not match _meta protocolVersion '${envelope.revision}'`,
      );
    }
    if (!isModernRevision(envelope.revision) || !supported.includes(envelope.revision)) {
      return unsupportedVersion(id, supported, envelope.revision);
    }
    return envelope;
  }

  if (header !== undefined && isModernRevision(header) && supported.includes(header)) {
    // Never fall back silently: the client asked for stateless semantics and would get the other era.
    return reject(
      'modern_header_without_envelope',
      400,
      ErrorCode.InvalidParams,
      `Invalid params: MCP-Protocol-Version is ${header} but params._meta lacks the 2026 envelope ('${META_PROTOCOL_VERSION}')`,
      id,
    );
  }

  const legacy = supported.filter(isLegacyRevision);
  if (message.method === 'initialize') {
    // The handshake negotiates (it answers a counter-offer, not an error), so its header is not gated here,
    // as the SDK transports exempt `initialize` from header validation.
    if (legacy.length === 0) {
      const requested = message.params?.protocolVersion;
      return unsupportedVersion(id, supported, describeValue(requested));
    }
    return { era: 'legacy', revision: negotiateLegacyRevision(message.params?.protocolVersion, supported) as string };
  }
  const revision = header ?? HEADERLESS_LEGACY_REVISION;
  if (!isLegacyRevision(revision) || !supported.includes(revision)) return unsupportedVersion(id, supported, revision);
  return { era: 'legacy', revision };
}

function readEnvelope(meta: JsonObject): ModernEra | string {
  const revision = meta[META_PROTOCOL_VERSION];
  if (typeof revision !== 'string') return `_meta['${META_PROTOCOL_VERSION}'] must be a string`;
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) {
    return `_meta['${META_CLIENT_CAPABILITIES}'] is required and must be an object ({} declares none)`;
  }
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined) {
    if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
      return `_meta['${META_CLIENT_INFO}'] must have string "name" and "version"`;
    }
    const clientInfo: ClientInfo = {
      name: info.name,
      version: info.version,
      ...(typeof info.title === 'string' ? { title: info.title } : {}),
    };
    return { era: 'modern', revision, clientCapabilities: capabilities, clientInfo };
  }
  return { era: 'modern', revision, clientCapabilities: capabilities };
}

/**
 * docs/ladder.md §1: `initialize` asking for an enabled legacy revision gets it; anything else (an unknown
 * string, 2026-07-28, a disabled 2025 revision) gets the newest enabled legacy revision.
 * 2026-07-28 is never negotiated through `initialize`.
 */
export function negotiateLegacyRevision(requested: unknown, supported: readonly string[]): string | undefined {
  if (typeof requested === 'string' && isLegacyRevision(requested) && supported.includes(requested)) return requested;
  return supported.filter(isLegacyRevision)[0];
}
