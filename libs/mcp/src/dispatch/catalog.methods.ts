import { Injectable } from '@nestjs/common';
import { McpRejectionError } from '../http/send.js';
import { invalidParams, type JsonObject, RawJson } from '../protocol/index.js';
import type { McpCall, McpMethodHandler } from './mcp-call.js';

const EMPTY = new RawJson('[]');

/**
 * Resources, templates, prompts and completions: advertised (clients expect the capabilities) and
 * answered correctly while no provider declares any — empty lists, and not-found errors that
 * name what was asked.
 */
@Injectable()
export class CatalogMethods {
  handlers(): McpMethodHandler[] {
    const both = ['modern', 'legacy'] as const;
    const emptyList = (key: string) => (call: McpCall): JsonObject => {
      if (call.params.cursor !== undefined) throw new McpRejectionError(invalidParams(call.id, 'Invalid params: invalid or expired cursor'));
      return { [key]: EMPTY };
    };
    return [
      { method: 'resources/list', eras: both, handle: emptyList('resources') },
      { method: 'resources/templates/list', eras: both, handle: emptyList('resourceTemplates') },
      { method: 'prompts/list', eras: both, handle: emptyList('prompts') },
      {
        method: 'resources/read',
        eras: both,
        handle: (call) => {
          const uri = call.params.uri;
          throw new McpRejectionError(invalidParams(call.id, `Resource not found: ${String(uri)}`, { uri }));
        },
      },
      {
        method: 'prompts/get',
        eras: both,
        handle: (call) => {
          throw new McpRejectionError(invalidParams(call.id, `Unknown prompt: ${String(call.params.name)}`));
        },
      },
      {
        method: 'completion/complete',
        eras: both,
        handle: (call) => {
          throw new McpRejectionError(invalidParams(call.id, 'Invalid params: unknown completion reference'));
        },
      },
    ];
  }
}
