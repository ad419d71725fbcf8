import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { McpCall } from '../dispatch/mcp-call.js';
import { McpRejectionError } from '../http/send.js';
import { McpConfig } from '../mcp-config.js';
import { ErrorCode, invalidParams, isPlainObject, type JsonObject, reject } from '../protocol/index.js';
import { MCP_STATE_STORE, type McpStateStore } from '../state/mcp-state-store.js';
import { canonicalJson } from './canonical-json.js';
import { InputRequiredSignal, kindOf, InputRound, MissingCapabilitySignal } from './inputs.js';
import { argumentDigest, RequestStateSealer } from './request-state.js';

const STATE_TTL_MS = 10 * 60_000;
const INVALID_STATE = 'Invalid or expired requestState';

/**
 * The stateless multi-round-trip machinery (2026-07-28 MRTR) around `tools/call`, `prompts/get`
 * and `resources/read`: checks a returned `requestState` (sealed, bound, unexpired, unused) and
 * the `inputResponses`, hands the handler its `InputRound`, and turns its request for input into an
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

  async run(call: McpCall, target: string, args: unknown, work: (inputs: InputRound) => Promise<JsonObject>): Promise<JsonObject> {
    const inputs = await this.prepare(call, target, args);
    // The call object is per request: attaching the round to it (rather than copying the call)
    // keeps its lazily computed fields lazy.
    call.inputs = inputs;
    try {
      return await work(inputs);
    } catch (signal) {
      if (signal instanceof MissingCapabilitySignal) {
        const names = Object.keys(signal.required).join(', ');
        throw new McpRejectionError(
          reject('missing_client_capability', 400, ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${names}`, call.id, {
            data: { requiredCapabilities: signal.required },
          }),
        );
      }
      if (!(signal instanceof InputRequiredSignal)) throw signal;
      if (call.era.era !== 'modern') {
        // Never input_required in the 2025 era: there is no way to carry the request.
        throw new McpRejectionError(invalidParams(call.id, 'This request needs input from the client, which the 2025-era protocol cannot carry'));
      }
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

  private async prepare(call: McpCall, target: string, args: unknown): Promise<InputRound> {
    if (call.era.era !== 'modern') return new InputRound('legacy', {}, {}, undefined);
    const { requestState, inputResponses } = call.params;
    if (inputResponses !== undefined && !isPlainObject(inputResponses)) {
      throw new McpRejectionError(invalidParams(call.id, 'Invalid params: inputResponses must be an object'));
    }
    let data: unknown;
    if (requestState !== undefined) {
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
      data = claims.data;
    }
    return new InputRound('modern', call.era.clientCapabilities, (inputResponses as JsonObject | undefined) ?? {}, data);
  }
}
