import type { Attributes } from '@opentelemetry/api';
import type { McpTarget } from '../call/exchange.js';
import * as sc from './semconv.js';
import { spanOnly } from './span-attributes.js';

const MAX_CACHED_LABEL_SETS = 4096;

/** An outcome's metric labels, and those of them its span gets only when it ends (spanOnly). */
export interface OutcomeLabels {
  readonly metric: Attributes;
  readonly span: Attributes;
}

type ByError = Map<string, OutcomeLabels>;

/**
 * The label sets of the request outcomes (mcp-telemetry.ts, `finish`), each made once, frozen and
 * shared — the metrics SDK is then handed the same object for every request of one outcome — and
 * found again by method, target, revision and error through nested maps: the usual outcome of a call
 * builds no key string (bench/RESULTS.md, issue 32, tracing). Every label is bounded (a method label,
 * a served tool's or prompt's name, a known revision, an error code); the cap only guards against
 * one that is not.
 */
export class OutcomeLabelSets {
  private readonly sets = new Map<string, Map<string, Map<string, ByError>>>();
  private count = 0;

  of(
    label: string,
    target: McpTarget | undefined,
    revision: string | undefined,
    errorType: string | undefined,
    code: number | undefined,
  ): OutcomeLabels {
    const error = errorType === undefined && code === undefined ? '' : `${errorType ?? ''}\u0000${code ?? ''}`;
    const byError = this.sets
      .get(label)
      ?.get(target?.name ?? '')
      ?.get(revision ?? '');
    const cached = byError?.get(error);
    if (cached) return cached;
    const attributes: Attributes = {
      [sc.ATTR_MCP_METHOD_NAME]: label,
      ...target?.attributes,
      ...(revision ? { [sc.ATTR_MCP_PROTOCOL_VERSION]: revision } : {}),
      [sc.ATTR_NETWORK_TRANSPORT]: 'tcp',
      [sc.ATTR_NETWORK_PROTOCOL_NAME]: 'http',
      ...(errorType ? { [sc.ATTR_ERROR_TYPE]: errorType } : {}),
      ...(code !== undefined ? { [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: String(code) } : {}),
    };
    const labels = { metric: Object.freeze(attributes), span: Object.freeze(spanOnly(attributes)) };
    if (this.count < MAX_CACHED_LABEL_SETS) {
      this.count++;
      (byError ?? this.byErrorOf(label, target?.name ?? '', revision ?? '')).set(error, labels);
    }
    return labels;
  }

  private byErrorOf(label: string, name: string, revision: string): ByError {
    let byTarget = this.sets.get(label);
    if (!byTarget) this.sets.set(label, (byTarget = new Map()));
    let byRevision = byTarget.get(name);
    if (!byRevision) byTarget.set(name, (byRevision = new Map()));
    let byError = byRevision.get(revision);
    if (!byError) byRevision.set(revision, (byError = new Map()));
    return byError;
  }
}
