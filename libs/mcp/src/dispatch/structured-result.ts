import type { OutputContract } from '../discovery/output-contract.js';
import { isPlainObject, type EraDecision } from '../protocol/index.js';
import { RawJson } from '../protocol/serialize.js';

/** `structuredContent` exists from 2025-06-18 (server/tools §Structured Content); 2025-03-26 results stay text-only. */
export function carriesStructuredContent(era: EraDecision): boolean {
  return era.era === 'modern' || era.revision >= '2025-06-18';
}

/** Thrown when a tool's result contradicts its own `outputSchema`: a server bug, logged and masked. */
export class OutputSchemaMismatch extends Error {
  constructor(tool: string, detail: string) {
    super(`tool ${tool} returned a result that does not match its outputSchema: ${detail}`);
  }
}

/**
 * The content of a successful result of a tool. The value is serialized once: that JSON is the
 * text block (for clients that read only text, as the seed asks) and, spliced in unchanged by
 * serializeSuccess, the `structuredContent` of a tool that declares an `outputSchema`.
 */
export function presentedContent(
  tool: { name: string; output?: OutputContract },
  presented: unknown,
  era: EraDecision,
): { content: unknown[]; structuredContent?: RawJson } {
  if (presented === undefined) return { content: [] };
  const json = JSON.stringify(presented);
  const content = [{ type: 'text', text: json }];
  if (!tool.output || !carriesStructuredContent(era)) return { content };
  // 2025-06-18 and 2026-07-28 both take an object here; anything else stays in the text block.
  if (!isPlainObject(presented)) throw new OutputSchemaMismatch(tool.name, 'the result is not a JSON object');
  const mismatch = tool.output.check(presented);
  if (mismatch !== undefined) throw new OutputSchemaMismatch(tool.name, mismatch);
  return { content, structuredContent: new StructuredJson(json) };
}

/** RawJson that also serializes as its value where a result is stringified whole (e.g. a stored task result). */
class StructuredJson extends RawJson {
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
