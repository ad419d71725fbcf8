import { Injectable } from '@nestjs/common';
import { ResourceAccess } from '../access/resource-access.js';
import type { McpPrincipal } from '../auth/principal.js';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { answerOf, McpRejectionError, rethrowable } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, type JsonObject, stringParam } from '../protocol/index.js';
import { AccessPolicy } from '../access/access-policy.js';
import { toResourceContents } from '../call/catalog-results.js';
import { answerSiteOf, type McpCall, type McpMethodHandler } from '../call/mcp-call.js';
import { MethodInvoker } from './method-invoker.js';
import { admitCatalogEntry, type CatalogDoor, invokeCatalogEntry } from './catalog-entry.js';
import { VisibleLists } from './visible-lists.js';
import { pageResult } from './paged-list.js';
import { MrtrService } from '../confirmation/mrtr.service.js';

/** `resources/list`, `resources/templates/list` and `resources/read` (both eras); what a principal may read. */
@Injectable()
export class ResourceHandler implements ResourceAccess {
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
      { method: 'resources/list', eras: both, handle: (call) => this.list(call) },
      { method: 'resources/templates/list', eras: both, handle: (call) => this.templates(call) },
      { method: 'resources/read', eras: both, handle: (call) => this.read(call) },
    ];
  }

  /** The read itself decides (access/resource-access.ts): run as a `resources/read` of `uri` within `on`. */
  async canRead(principal: McpPrincipal | undefined, uri: string, on: McpCall): Promise<void> {
    const read: McpCall = {
      id: on.id,
      method: 'resources/read',
      params: { uri },
      era: on.era,
      principal,
      requestId: on.requestId,
      req: on.req,
      res: on.res,
    };
    try {
      await this.read(read);
    } catch (thrown) {
      // Answered as the read's own site would answer it (errors.ts): the asking method's site does
      // not know the URI, and would make another organisation's 404 "Invalid params: Api Error".
      throw rethrowable(answerOf(thrown, answerSiteOf(read, 'method', this.door.config)), thrown);
    }
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
    const uri = stringParam(call.params, 'uri', () => invalidParams(call.id, 'Invalid params: "uri" must be a string'));
    const notFound = (): McpRejectionError =>
      new McpRejectionError(invalidParams(call.id, `Resource not found: ${uri}`, { uri }));
    const match = this.catalog.resolve(uri);
    if (!match) throw notFound();
    const target = 'resource' in match ? match.resource : match.template;
    const name = 'resource' in match ? match.resource.uri : match.template.compiled.template;
    const { scopes, roles } = target;
    admitCatalogEntry(this.door, call, { kind: 'resource', name, scopes, roles }, uri, notFound);
    const args: JsonObject = {};
    if ('template' in match)
      for (const [variable, arg] of Object.entries(match.template.bind)) args[arg] = match.values[variable];
    // What the app's method throws is answered by the one map (errors.ts): a 404 is "resource not found".
    const meta = 'resource' in match ? match.resource.contentMeta : undefined;
    return invokeCatalogEntry(this.door, call, { key: uri, args: { uri } }, target, args, { name, uri }, (value) => ({
      contents: meta
        ? toResourceContents(uri, target.mimeType, value).map((content) => ({ ...content, _meta: meta }))
        : toResourceContents(uri, target.mimeType, value),
    }));
  }
}
