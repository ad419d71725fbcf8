import type { JsonObject } from './jsonrpc.js';

/** One request embedded in an `input_required` result (2026-07-28 MRTR). */
export type InputRequest =
  | { method: 'elicitation/create'; params: { mode?: 'form'; message: string; requestedSchema: JsonObject } }
  | { method: 'elicitation/create'; params: { mode: 'url'; message: string; url: string } }
  | { method: 'sampling/createMessage'; params: JsonObject & { messages: unknown[]; maxTokens: number } }
  | { method: 'roots/list'; params: JsonObject };

export type InputKind = 'form' | 'url' | 'sampling' | 'roots';

export const InputRequests = {
  form: (message: string, requestedSchema: JsonObject): InputRequest => ({
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema },
  }),
  url: (message: string, url: string): InputRequest => ({
    method: 'elicitation/create',
    params: { mode: 'url', message, url },
  }),
  sampling: (params: JsonObject & { messages: unknown[]; maxTokens: number }): InputRequest => ({
    method: 'sampling/createMessage',
    params,
  }),
  roots: (): InputRequest => ({ method: 'roots/list', params: {} }),
};

export function kindOf(request: InputRequest): InputKind {
  if (request.method === 'sampling/createMessage') return 'sampling';
  if (request.method === 'roots/list') return 'roots';
  return request.params.mode === 'url' ? 'url' : 'form';
}
