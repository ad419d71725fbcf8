import { InputRequiredSignal, type InputRoundOrigin, MissingCapabilitySignal } from '../errors.js';
import {
  type InputKind,
  type InputRequest,
  isPlainObject,
  type JsonObject,
  kindOf,
  stringField,
} from '../protocol/index.js';

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
}

/**
 * What a tool, prompt or resource handler gets with `@McpInputs()`: the answers to what it asked
 * in an earlier round (validated, unknown keys ignored), its own state from that round, and
 * `require()` to ask for more. Only the 2026 era can carry input requests.
 */
export class McpInputRound {
  constructor(
    readonly era: 'modern' | 'legacy',
    private readonly capabilities: JsonObject,
    private readonly responses: JsonObject,
    /** The handler's state from the previous round (undefined on a first call). */
    readonly state: unknown,
    /** What MrtrService opened the round for: `require()` hands it on, so that the answer's state is sealed to it. */
    private readonly origin?: InputRoundOrigin,
  ) {}

  /** Whether input requests can be answered at all (2026 era). */
  get available(): boolean {
    return this.era === 'modern';
  }

  /** Whether the client declared what `kind` needs in this request's envelope. */
  can(kind: InputKind): boolean {
    if (!this.available) return false;
    const elicitation = this.capabilities.elicitation;
    switch (kind) {
      case 'form':
        // A bare `elicitation: {}` means form mode (2026-07-28 client/elicitation §Capabilities).
        return isPlainObject(elicitation) && (Object.keys(elicitation).length === 0 || 'form' in elicitation);
      case 'url':
        return isPlainObject(elicitation) && 'url' in elicitation;
      case 'sampling':
        return isPlainObject(this.capabilities.sampling);
      case 'roots':
        return isPlainObject(this.capabilities.roots);
    }
  }

  /** A valid elicitation answer for `key` (content checked against `schema` when given), else undefined. */
  elicitation(key: string, schema?: JsonObject): ElicitResult | undefined {
    const answer = this.responses[key];
    const action = stringField(answer, 'action');
    if (!isPlainObject(answer) || (action !== 'accept' && action !== 'decline' && action !== 'cancel'))
      return undefined;
    if (action !== 'accept') return { action };
    if (answer.content !== undefined && !isPlainObject(answer.content)) return undefined;
    const content = (answer.content ?? {}) as JsonObject;
    if (schema && !matchesFlatSchema(content, schema)) return undefined;
    return { action: 'accept', content };
  }

  /** A sampling answer (CreateMessageResult) for `key`, else undefined. */
  sampling(key: string): JsonObject | undefined {
    const answer = this.responses[key];
    return isPlainObject(answer) && isPlainObject(answer.content) && typeof answer.role === 'string'
      ? answer
      : undefined;
  }

  /** A roots/list answer for `key`, else undefined. */
  roots(key: string): { uri: string; name?: string }[] | undefined {
    const answer = this.responses[key];
    return isPlainObject(answer) && Array.isArray(answer.roots)
      ? (answer.roots as { uri: string; name?: string }[])
      : undefined;
  }

  /** Asks the client for input and ends this round; the retry comes back with the answers and `state`. */
  require(requests: Record<string, InputRequest>, state?: unknown): never {
    const missing: JsonObject = {};
    for (const request of Object.values(requests)) {
      const kind = kindOf(request);
      if (this.can(kind)) continue;
      if (kind === 'form') missing.elicitation = { form: {} };
      else if (kind === 'url') missing.elicitation = { url: {} };
      else missing[kind] = {};
    }
    if (this.available && Object.keys(missing).length) throw new MissingCapabilitySignal(missing);
    throw new InputRequiredSignal(requests, state, this.origin);
  }
}

/** Checks form content against a flat elicitation schema: required keys, primitive types, enums. */
export function matchesFlatSchema(content: JsonObject, schema: JsonObject): boolean {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  if (required.some((k) => content[k] === undefined)) return false;
  for (const [key, value] of Object.entries(content)) {
    const property = properties[key];
    if (!isPlainObject(property)) continue;
    const type = property.type;
    if (type === 'string' && typeof value !== 'string') return false;
    if (type === 'boolean' && typeof value !== 'boolean') return false;
    if (type === 'number' && typeof value !== 'number') return false;
    if (type === 'integer' && !Number.isInteger(value)) return false;
    if (Array.isArray(property.enum) && !property.enum.includes(value)) return false;
  }
  return true;
}
