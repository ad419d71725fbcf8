import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { answerSiteOf, type McpCall } from '../call/mcp-call.js';
import { answerOf, McpRejectionError, rethrowable } from '../errors.js';
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
 * the `inputResponses`, hands the handler its `McpInputRound`, and turns its request for input into an
 * `input_required` result with a freshly sealed state.
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

  async run(
    call: McpCall,
    target: string,
    args: unknown,
    work: (inputs: McpInputRound) => Promise<JsonObject>,
  ): Promise<JsonObject> {
    // Without a returned requestState the round is known at once: no await for it.
    const round = this.prepare(call, target, args);
    const inputs = round instanceof McpInputRound ? round : await round;
    // The call object is per request: attaching the round to it (rather than copying the call)
    // keeps its lazily computed fields lazy.
    call.inputs = inputs;
    try {
      return await work(inputs);
    } catch (thrown) {
      // The one map (errors.ts): only a 2026-era request for input is answered here, with a sealed state.
      const answer = answerOf(thrown, answerSiteOf(call, 'method', this.config));
      if (answer.kind !== 'input_required') throw rethrowable(answer, thrown);
      const { signal } = answer;
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
  }

  private prepare(call: McpCall, target: string, args: unknown): McpInputRound | Promise<McpInputRound> {
    if (call.era.era !== 'modern') return new McpInputRound('legacy', {}, {}, undefined);
    const { requestState, inputResponses } = call.params;
    if (inputResponses !== undefined && !isPlainObject(inputResponses)) {
      throw new McpRejectionError(invalidParams(call.id, 'Invalid params: inputResponses must be an object'));
    }
    if (requestState !== undefined) return this.resume(call, target, args, requestState);
    return this.round(call, undefined);
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
    return this.round(call, claims.data);
  }

  private round(call: McpCall, data: unknown): McpInputRound {
    const era = call.era;
    return new McpInputRound(
      'modern',
      era.era === 'modern' ? era.clientCapabilities : {},
      (call.params.inputResponses as JsonObject | undefined) ?? {},
      data,
    );
  }
}
