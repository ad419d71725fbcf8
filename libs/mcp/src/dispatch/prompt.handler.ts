import { Injectable } from '@nestjs/common';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, isPlainObject, type JsonObject } from '../protocol/index.js';
import { AccessPolicy } from './access-policy.js';
import { toPromptResult } from '../call/catalog-results.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { MethodInvoker } from './method-invoker.js';
import { insufficientScope } from './scope-challenge.js';
import { VisibleLists } from './visible-lists.js';
import { pageResult } from './paged-list.js';
import { MrtrService } from '../confirmation/mrtr.service.js';

/** `prompts/list` and `prompts/get` (both eras). */
@Injectable()
export class PromptHandler {
  constructor(
    private readonly catalog: McpCatalogRegistry,
    private readonly lists: VisibleLists,
    private readonly access: AccessPolicy,
    private readonly invoker: MethodInvoker,
    private readonly config: McpConfig,
    private readonly mrtr: MrtrService,
  ) {}

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
    const name = call.params.name;
    const prompt = typeof name === 'string' ? this.catalog.prompts.get(name) : undefined;
    const decision = prompt
      ? this.access.decide(call.principal, {
          kind: 'prompt',
          name: prompt.name,
          scopes: prompt.scopes,
          roles: prompt.roles,
        })
      : 'hidden';
    if (!prompt || decision === 'hidden')
      throw new McpRejectionError(invalidParams(call.id, `Unknown prompt: ${String(name)}`));
    if (decision === 'missing_scope')
      throw new McpRejectionError(insufficientScope(this.config, call.req, call.id, prompt.name, prompt.scopes));
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
    return this.mrtr.run(call, prompt.name, args, async () => {
      const value = await this.invoker.invoke(prompt, args, call, { name: prompt.name });
      return toPromptResult(value, prompt.listing.description as string | undefined);
    });
  }
}
