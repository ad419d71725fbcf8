import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { McpCall } from '../call/mcp-call.js';
import { type InputRequiredSignal, type InputRoundOrigin, McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, isPlainObject, type JsonObject, kindOf } from '../protocol/index.js';
import { MCP_STATE_STORE, type McpStateStore } from '../state/mcp-state-store.js';
import { canonicalJson } from './canonical-json.js';
import { McpInputRound } from '../call/inputs.js';
import { argumentDigest, RequestStateSealer } from './request-state.js';

const STATE_TTL_MS = 10 * 60_000;
const INVALID_STATE = 'Invalid or expired requestState';

/**
 * The stateless multi-round-trip machinery (2026-07-28 MRTR) around `tools/call`, `prompts/get`
 * and `resources/read`: checks a returned `requestState` (sealed, bound, unexpired, unused) and
 * the `inputResponses` and opens the call's `McpInputRound` (handed to the handler explicitly), and
 * seals the state of the `input_required` answer the dispatcher gives a request for input.
 */
@Injectable()
export class MrtrService {
  private readonly sealer: RequestStateSealer;

  constructor(
    private readonly config: McpConfig,
    @Inject(MCP_STATE_STORE) private readonly store: McpStateStore,
  ) {
    this.sealer = new RequestStateSealer(config.stateKey);
  }

  /**
   * The input round of this call of `target` with `args`: the first (nothing asked yet), or the
   * retry's, whose requestState must be ours and bound to exactly this call. Without a returned
   * requestState the round is known at once: no promise for it.
   */
  open(call: McpCall, target: string, args: unknown): McpInputRound | Promise<McpInputRound> {
    if (call.era.era !== 'modern') return new McpInputRound('legacy', {}, {}, undefined);
    const { requestState, inputResponses } = call.params;
    if (inputResponses !== undefined && !isPlainObject(inputResponses)) {
      throw new McpRejectionError(invalidParams(call.id, 'Invalid params: inputResponses must be an object'));
    }
    if (requestState !== undefined) return this.resume(call, target, args, requestState);
    return this.round(call, target, args, undefined);
  }

  /**
   * The `input_required` result for a round's request for input (2026 era; errors.ts decides when),
   * with a freshly sealed state bound to the caller, the method and the round's target and arguments.
   */
  sealed(call: McpCall, signal: InputRequiredSignal & { origin: InputRoundOrigin }): JsonObject {
    const { target, args } = signal.origin;
    const asked = Object.fromEntries(Object.entries(signal.requests).map(([key, request]) => [key, kindOf(request)]));
    const requestState = this.sealer.seal({
      sub: this.config.principalKey(call.principal),
      method: call.method,
      target,
      digest: argumentDigest(canonicalJson(args)),
      exp: Date.now() + STATE_TTL_MS,
      nonce: randomBytes(16).toString('base64url'),
      asked,
      ...(signal.state === undefined ? {} : { data: signal.state }),
    });
    return { resultType: 'input_required', inputRequests: signal.requests, requestState };
  }

  /** A later round: the returned requestState must be sealed by us, bound to this call, unexpired and unused. */
  private async resume(call: McpCall, target: string, args: unknown, requestState: unknown): Promise<McpInputRound> {
    const claims = this.sealer.open(requestState);
    const fails =
      !claims ||
      claims.exp < Date.now() ||
      claims.sub !== this.config.principalKey(call.principal) ||
      claims.method !== call.method ||
      claims.target !== target ||
      claims.digest !== argumentDigest(canonicalJson(args));
    if (fails) throw new McpRejectionError(invalidParams(call.id, INVALID_STATE, { reason: 'invalid_request_state' }));
    // Single use: a replayed state (same retry twice, or on another replica) is refused.
    if (!(await this.store.consumeOnce(`mrtr-nonce:${claims.nonce}`, STATE_TTL_MS))) {
      throw new McpRejectionError(invalidParams(call.id, INVALID_STATE, { reason: 'invalid_request_state' }));
    }
    return this.round(call, target, args, claims.data);
  }

  private round(call: McpCall, target: string, args: unknown, data: unknown): McpInputRound {
    const era = call.era;
    return new McpInputRound(
      'modern',
      era.era === 'modern' ? era.clientCapabilities : {},
      (call.params.inputResponses as JsonObject | undefined) ?? {},
      data,
      { target, args },
    );
  }
}
