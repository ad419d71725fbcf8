import { Injectable } from '@nestjs/common';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, type JsonObject } from '../protocol/index.js';
import { AccessPolicy } from './access-policy.js';
import { toResourceContents } from '../call/catalog-results.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { MethodInvoker } from './method-invoker.js';
import { insufficientScope } from './scope-challenge.js';
import { VisibleLists } from './visible-lists.js';
import { pageResult } from './paged-list.js';
import { MrtrService } from '../confirmation/mrtr.service.js';

/** `resources/list`, `resources/templates/list` and `resources/read` (both eras). */
@Injectable()
export class ResourceHandler {
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
      { method: 'resources/list', eras: both, handle: (call) => this.list(call) },
      { method: 'resources/templates/list', eras: both, handle: (call) => this.templates(call) },
      { method: 'resources/read', eras: both, handle: (call) => this.read(call) },
    ];
  }

  private list(call: McpCall): JsonObject {
    return pageResult(
      this.lists.of('resources', 'resource', call.principal, this.catalog.resourceList, (r) => r.uri),
      call,
      'resources',
    );
  }

  private templates(call: McpCall): JsonObject {
    return pageResult(
      this.lists.of('templates', 'resource', call.principal, this.catalog.templates, (t) => t.compiled.template),
      call,
      'resourceTemplates',
    );
  }

  private async read(call: McpCall): Promise<JsonObject> {
    const uri = call.params.uri;
    if (typeof uri !== 'string')
      throw new McpRejectionError(invalidParams(call.id, 'Invalid params: "uri" must be a string'));
    const notFound = (): McpRejectionError =>
      new McpRejectionError(invalidParams(call.id, `Resource not found: ${uri}`, { uri }));
    const match = this.catalog.resolve(uri);
    if (!match) throw notFound();
    const target = 'resource' in match ? match.resource : match.template;
    const name = 'resource' in match ? match.resource.uri : match.template.compiled.template;
    const decision = this.access.decide(call.principal, {
      kind: 'resource',
      name,
      scopes: target.scopes,
      roles: target.roles,
    });
    if (decision === 'hidden') throw notFound();
    if (decision === 'missing_scope')
      throw new McpRejectionError(insufficientScope(this.config, call.req, call.id, uri, target.scopes));
    const args: JsonObject = {};
    if ('template' in match)
      for (const [variable, arg] of Object.entries(match.template.bind)) args[arg] = match.values[variable];
    // What the app's method throws is answered by the one map (errors.ts): a 404 is "resource not found".
    return this.mrtr.run(call, uri, { uri }, async () => {
      const value = await this.invoker.invoke(target, args, call, { name, uri });
      return { contents: toResourceContents(uri, target.mimeType, value) };
    });
  }
}
