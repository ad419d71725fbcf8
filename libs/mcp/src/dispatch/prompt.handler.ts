import { Injectable } from '@nestjs/common';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, isPlainObject, type JsonObject, stringParam } from '../protocol/index.js';
import { AccessPolicy } from '../access/access-policy.js';
import { toPromptResult } from '../call/catalog-results.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { MethodInvoker } from './method-invoker.js';
import { admitCatalogEntry, type CatalogDoor, invokeCatalogEntry } from './catalog-entry.js';
import { VisibleLists } from './visible-lists.js';
import { pageResult } from './paged-list.js';
import { MrtrService } from '../confirmation/mrtr.service.js';

/** `prompts/list` and `prompts/get` (both eras). */
@Injectable()
export class PromptHandler {
  private readonly door: CatalogDoor;

  constructor(
    private readonly catalog: McpCatalogRegistry,
    private readonly lists: VisibleLists,
    access: AccessPolicy,
    invoker: MethodInvoker,
    config: McpConfig,
    mrtr: MrtrService,
  ) {
    this.door = { access, invoker, config, mrtr };
  }

  handlers(): McpMethodHandler[] {
    const both = ['modern', 'legacy'] as const;
    return [
      { method: 'prompts/list', eras: both, handle: (call) => this.list(call) },
      { method: 'prompts/get', eras: both, handle: (call) => this.get(call) },
    ];
  }

  private list(call: McpCall): JsonObject {
    return pageResult(
      this.lists.of('prompts', 'prompt', call.principal, this.catalog.promptList, (p) => p.name),
      call,
      'prompts',
    );
  }

  private async get(call: McpCall): Promise<JsonObject> {
    // A name that is not a string is an unknown prompt, shown as describeValue renders it.
    const unknownPrompt = (shown: string) => invalidParams(call.id, `Unknown prompt: ${shown}`);
    const name = stringParam(call.params, 'name', unknownPrompt);
    const prompt = this.catalog.prompts.get(name);
    const unknown = (): McpRejectionError => new McpRejectionError(unknownPrompt(name));
    if (!prompt) throw unknown();
    const { scopes, roles } = prompt;
    admitCatalogEntry(this.door, call, { kind: 'prompt', name: prompt.name, scopes, roles }, prompt.name, unknown);
    const given = call.params.arguments ?? {};
    if (!isPlainObject(given) || Object.values(given).some((v) => typeof v !== 'string')) {
      throw new McpRejectionError(
        invalidParams(call.id, 'Invalid params: prompt arguments must be an object of strings'),
      );
    }
    const args: JsonObject = {};
    for (const declared of prompt.arguments) {
      const value = given[declared.name];
      if (value === undefined || value === '') {
        if (declared.required)
          throw new McpRejectionError(
            invalidParams(call.id, `Invalid params: missing required argument '${declared.name}'`),
          );
        continue;
      }
      if (declared.enum && !declared.enum.includes(value as string)) {
        throw new McpRejectionError(
          invalidParams(call.id, `Invalid params: '${declared.name}' must be one of ${declared.enum.join(', ')}`),
        );
      }
      args[declared.name] = value;
    }
    // What the app's method throws is answered by the one map (errors.ts).
    return invokeCatalogEntry(
      this.door,
      call,
      { key: prompt.name, args },
      prompt,
      args,
      { name: prompt.name },
      (value) => toPromptResult(value, prompt.listing.description as string | undefined),
    );
  }
}
