import { isPlainObject, type JsonObject } from '../protocol/index.js';

/**
 * MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension): a `ui://` resource of type
 * `text/html;profile=mcp-app` that a host renders in a sandboxed iframe, named by a tool's
 * `_meta.ui.resourceUri` (spec README §Decisions added in 2026-12).
 */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The origins an app may reach, as the host turns them into the iframe's Content-Security-Policy. */
export interface McpAppCsp {
  /** fetch/XHR/WebSocket origins (default: none). */
  connectDomains?: readonly string[];
  /** Images, scripts, styles, fonts (default: none beyond the document itself). */
  resourceDomains?: readonly string[];
  /** Nested iframes (default: none). */
  frameDomains?: readonly string[];
  /** `<base href>` origins (default: none). */
  baseUriDomains?: readonly string[];
}

/** `@McpResource({ app })`: the resource is an MCP App (its uri must be `ui://…`). */
export interface McpAppResourceOptions {
  csp?: McpAppCsp;
  /** Whether the host should draw a border around the app. */
  prefersBorder?: boolean;
  /** A dedicated origin the host may give the app's sandbox. */
  domain?: string;
}

/** `@McpTool({ ui })`: the app that shows the tool's results; `visibility: ['app']` keeps the tool from the model. */
export type McpToolUi = string | { resourceUri: string; visibility?: readonly ('model' | 'app')[] };

/** The `_meta` of the resource's contents in `resources/read`. */
export function appContentMeta(app: McpAppResourceOptions): JsonObject {
  const csp = app.csp ?? {};
  return {
    ui: {
      csp: Object.fromEntries(Object.entries(csp).map(([key, domains]) => [key, [...(domains as string[])]])),
      ...(app.prefersBorder === undefined ? {} : { prefersBorder: app.prefersBorder }),
      ...(app.domain ? { domain: app.domain } : {}),
    },
  };
}

/** The `_meta` a tool is listed with for a client that renders apps. */
export function toolUiMeta(ui: McpToolUi): { resourceUri: string; meta: JsonObject } {
  const { resourceUri, visibility } = typeof ui === 'string' ? { resourceUri: ui, visibility: undefined } : ui;
  if (!resourceUri.startsWith('ui://')) throw new Error(`ui '${resourceUri}' must be a ui:// resource`);
  return { resourceUri, meta: { ui: { resourceUri, ...(visibility ? { visibility: [...visibility] } : {}) } } };
}

/** The server's capability: advertised only when the app declares at least one UI resource. */
export const appsCapability = (): JsonObject => ({ [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } });

/**
 * Whether this request's client renders apps. 2026: its own capabilities say so (per request).
 * 2025: what `initialize` declared is not known to a stateless server on later requests, and a
 * `_meta` key is ignorable by definition, so 2025 clients are listed the UI metadata.
 */
export function rendersApps(era: { era: 'modern' | 'legacy'; clientCapabilities?: JsonObject }): boolean {
  if (era.era === 'legacy') return true;
  const extensions = era.clientCapabilities?.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[MCP_APPS_EXTENSION]);
}
