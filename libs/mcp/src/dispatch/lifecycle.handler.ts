import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { appsCapability } from '../discovery/mcp-app.js';
import { McpToolRegistry } from '../discovery/tool-registry.js';
import { McpConfig } from '../mcp-config.js';
import { isLegacyRevision, type JsonObject, offeredCapabilities, TASKS_EXTENSION } from '../protocol/index.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';

/**
 * Discovery and handshake. In 2026 `listChanged`/`subscribe` mean "deliverable on
 * `subscriptions/listen`", so discover advertises exactly what the subscription options offer
 * (nothing without them). The 2025 era has no stream here (GET answers 405): `initialize` keeps
 * advertising them false.
 */
@Injectable()
export class LifecycleHandler implements OnApplicationBootstrap {
  private discover: JsonObject;
  private legacyCapabilities: JsonObject;

  constructor(
    private readonly config: McpConfig,
    private readonly tools: McpToolRegistry,
    private readonly catalog: McpCatalogRegistry,
  ) {
    this.discover = {
      supportedVersions: [...config.protocolVersions],
      capabilities: {
        ...offeredCapabilities(config.settings.listen.offer),
        completions: {},
        // Advertised only when the app keeps tasks somewhere (tasks.md §Capability Negotiation).
        ...(config.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
      ...(config.instructions ? { instructions: config.instructions } : {}),
    };
    this.legacyCapabilities = {
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      ...(config.legacyLogging ? { logging: {} } : {}),
    };
  }

  /**
   * MCP Apps: once every provider is scanned, each tool's `ui` must name a declared app resource,
   * and the extension is advertised (both eras) only when the app declares one.
   */
  onApplicationBootstrap(): void {
    const apps = new Set(this.catalog.resourceList.filter((r) => r.contentMeta !== undefined).map((r) => r.uri));
    for (const tool of this.tools.all()) {
      if (tool.uiResource !== undefined && !apps.has(tool.uiResource))
        throw new Error(
          `@McpTool '${tool.name}' on ${tool.location}: ui '${tool.uiResource}' is not declared by any @McpResource({ app })`,
        );
    }
    if (apps.size === 0) return;
    const withApps = (capabilities: unknown): JsonObject => {
      const own = capabilities as JsonObject;
      return { ...own, extensions: { ...(own.extensions as JsonObject | undefined), ...appsCapability() } };
    };
    this.discover = { ...this.discover, capabilities: withApps(this.discover.capabilities) };
    this.legacyCapabilities = withApps(this.legacyCapabilities);
  }

  handlers(): McpMethodHandler[] {
    const handlers: McpMethodHandler[] = [
      { method: 'server/discover', eras: ['modern'], handle: () => ({ ...this.discover }) },
      { method: 'initialize', eras: ['legacy'], handle: (call) => this.initialize(call) },
      { method: 'ping', eras: ['legacy'], handle: () => ({}) },
    ];
    // A stateless server cannot remember a level; it only acknowledges, when the adopter opts in.
    if (this.config.legacyLogging) handlers.push({ method: 'logging/setLevel', eras: ['legacy'], handle: () => ({}) });
    if (this.config.legacySubscriptions) {
      handlers.push({ method: 'resources/subscribe', eras: ['legacy'], handle: () => ({}) });
      handlers.push({ method: 'resources/unsubscribe', eras: ['legacy'], handle: () => ({}) });
    }
    return handlers;
  }

  private initialize(call: McpCall): JsonObject {
    // EraGuard negotiated the revision already (docs/ladder.md §1).
    const revision = call.era.revision;
    if (!isLegacyRevision(revision)) throw new Error(`initialize negotiated a non-legacy revision ${revision}`);
    return {
      protocolVersion: revision,
      capabilities: this.legacyCapabilities,
      serverInfo: this.config.serverInfo,
      ...(this.config.instructions ? { instructions: this.config.instructions } : {}),
    };
  }
}
