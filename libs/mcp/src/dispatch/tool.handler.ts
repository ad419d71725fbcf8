import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '../auth/principal.js';
import { rendersApps } from '../discovery/mcp-app.js';
import { McpToolRegistry, type RegisteredTool } from '../discovery/tool-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, isPlainObject, type JsonObject, stringParam } from '../protocol/index.js';
import { AccessPolicy } from './access-policy.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { type PagedList, pageResult } from './paged-list.js';
import { insufficientScope } from './scope-challenge.js';
import { TaskHandler } from './task.handler.js';
import { ToolInvoker } from './tool-invoker.js';
import { VisibleLists } from './visible-lists.js';
import { DestructiveGate } from '../confirmation/destructive-gate.js';
import { MrtrService } from '../confirmation/mrtr.service.js';

/** `tools/list` and `tools/call` (both eras). */
@Injectable()
export class ToolHandler {
  /** Whether any tool has an app (then clients that render none get their own list). */
  private withApps?: boolean;

  constructor(
    private readonly registry: McpToolRegistry,
    private readonly access: AccessPolicy,
    private readonly invoker: ToolInvoker,
    private readonly config: McpConfig,
    private readonly lists: VisibleLists,
    private readonly mrtr: MrtrService,
    private readonly gate: DestructiveGate,
    private readonly tasks: TaskHandler,
  ) {}

  handlers(): McpMethodHandler[] {
    const both = ['modern', 'legacy'] as const;
    return [
      { method: 'tools/list', eras: both, handle: (call) => this.list(call) },
      { method: 'tools/call', eras: both, handle: (call) => this.call(call) },
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

  private async call(call: McpCall): Promise<JsonObject> {
    const { params } = call;
    const name = stringParam(params, 'name', () => invalidParams(call.id, 'Invalid params: "name" must be a string'));
    const tool = this.registry.get(name);
    const decision = tool ? this.access.decide(call.principal, requirement(tool)) : 'hidden';
    // A role cannot be stepped up, so a role-hidden tool is indistinguishable from an unknown one.
    if (!tool || decision === 'hidden') throw new McpRejectionError(invalidParams(call.id, `Unknown tool: ${name}`));
    if (decision === 'missing_scope')
      throw new McpRejectionError(insufficientScope(this.config, call.req, call.id, tool.name, tool.scopes));
    // Gateway compatibility (seed 004): `payload` stands in for absent `arguments`.
    const args =
      params.arguments !== undefined ? params.arguments : isPlainObject(params.payload) ? params.payload : {};
    if (!isPlainObject(args))
      throw new McpRejectionError(invalidParams(call.id, 'Invalid params: "arguments" must be an object'));
    // Decided before anything runs: a tool that needs a task refuses a client that cannot take one.
    const asTask =
      this.tasks.modeOf(tool, call) === 'task'
        ? (value: unknown) => this.tasks.create(tool, args, value, call)
        : undefined;
    // The task is made only once the method ran, so every input round of the call (the
    // confirmation of a destructive tool) completes synchronously first (tasks.md §Task Creation).
    return this.mrtr.run(call, tool.name, args, (inputs) =>
      tool.annotations.destructiveHint
        ? this.invoker.invoke(tool, args, call, (run) => this.gate.guard(tool, args, call, inputs, run), asTask)
        : this.invoker.invoke(tool, args, call, undefined, asTask),
    );
  }
}

const plainEntry = (tool: RegisteredTool) => tool.plainListing;

function requirement(tool: RegisteredTool) {
  return { kind: 'tool' as const, name: tool.name, scopes: tool.scopes, roles: tool.roles };
}
