import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import { rendersApps } from '../discovery/mcp-app.js';
import { McpToolRegistry, type RegisteredTool } from '../discovery/tool-registry.js';
import type { JsonObject } from '../protocol/index.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { type PagedList, pageResult } from './paged-list.js';
import { ToolInvoker } from './tool-invoker.js';
import { VisibleLists } from './visible-lists.js';

/** `tools/list` and `tools/call` (both eras). */
@Injectable()
export class ToolHandler {
  /** Whether any tool has an app (then clients that render none get their own list). */
  private withApps?: boolean;

  constructor(
    private readonly registry: McpToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly lists: VisibleLists,
  ) {}

  handlers(): McpMethodHandler[] {
    const both = ['modern', 'legacy'] as const;
    return [
      { method: 'tools/list', eras: both, handle: (call) => this.list(call) },
      // Its steps, in order: TOOL_CALL (tool-call.pipeline.ts).
      { method: 'tools/call', eras: both, handle: (call) => this.invoker.call(call) },
    ];
  }

  /**
   * The tools a principal may run, as a paged list shared by every caller with the same visibility.
   * `apps: false` lists them without the UI metadata (a client that does not render MCP Apps).
   */
  visibleTools(principal: McpPrincipal | undefined, apps = true): PagedList<RegisteredTool> {
    this.withApps ??= this.registry.all().some((tool) => tool.uiResource !== undefined);
    if (apps || !this.withApps)
      return this.lists.of('tools', 'tool', principal, this.registry.all(), (tool) => tool.name);
    return this.lists.of('tools-plain', 'tool', principal, this.registry.all(), (tool) => tool.name, plainEntry);
  }

  private list(call: McpCall): JsonObject {
    return pageResult(this.visibleTools(call.principal, rendersApps(call.era)), call, 'tools');
  }
}

const plainEntry = (tool: RegisteredTool) => tool.plainListing;
