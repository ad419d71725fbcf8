import type { McpToolAnnotationDefaults } from '../mcp.options.js';

export const MCP_TOOL_METADATA = 'mcp:tool';

export interface McpToolAnnotations extends McpToolAnnotationDefaults {
  /** Display title; defaults to the tool's `title`. */
  title?: string;
}

/** A preflight given as the method itself (`Service.prototype.method`): any method, its parameters checked by `McpTool`. */
export type McpPreflight<P extends unknown[] = never[]> = (...args: P) => unknown;

export interface McpToolOptions {
  /** `[A-Za-z0-9_.-]{1,128}`, unique in the app. */
  name: string;
  title?: string;
  /** What the tool does, written for a model. */
  description: string;
  annotations?: McpToolAnnotations;
  /** OAuth scopes the token must all hold to see and call the tool. */
  scopes?: readonly string[];
  /** Roles of which the principal must hold at least one (empty or absent: any role). */
  roles?: readonly string[];
  /** Extra JSON Schema keywords merged into the tool's inputSchema (e.g. `x-mcp-header` hints, examples). */
  inputSchema?: Record<string, unknown>;
  /** A JSON Schema served verbatim instead of the generated one (arguments are then validated by the method). */
  rawInputSchema?: Record<string, unknown>;
  /**
   * The response DTO (a class-validator class, like an input DTO): its JSON Schema, made by the same
   * converter as `inputSchema`, is listed as `outputSchema`, and every successful result carries the
   * returned object as `structuredContent` too (2025-06-18 and later). Default: the class of a 2xx
   * `@ApiResponse({ type })` (@nestjs/swagger) on the same method, if any.
   */
  output?: import('@nestjs/common').Type;
  /**
   * MCP Apps: the `ui://` resource (declared with `@McpResource({ app })`) that shows this tool's
   * results, listed as `_meta.ui.resourceUri` to clients that render apps; `visibility: ['app']`
   * marks a tool meant for the app only.
   */
  ui?: import('./mcp-app.js').McpToolUi;
  /** A JSON Schema listed verbatim as `outputSchema`, instead of one made from `output`. */
  outputSchema?: Record<string, unknown>;
  /**
   * Destructive tools: a method of the same provider, called with the tool's own parameters after
   * validation and before anyone is asked to confirm (e.g. "does the target exist for this caller?").
   * An HttpException it throws answers the call like the tool's own error would, and no confirmation
   * or approval is made. Give the method itself — `preflight: NotesService.prototype.get` — so the
   * compiler checks that its parameters are the tool's first ones; a method name (`'get'`) still
   * works but is deprecated (a renamed method is then found only at boot).
   */
  preflight?: string | McpPreflight;
  /**
   * Tasks extension (2026 era, when the app gives `tasks`): `optional` — a client that declares
   * `io.modelcontextprotocol/tasks` on the call gets a task made by the app's task source from what
   * the method returns (others get the usual result); `required` — the method only makes sense as a
   * task, so a client that does not declare the extension gets -32021. Any confirmation or other
   * input round of the call completes before the task is made.
   */
  task?: 'optional' | 'required';
  /** Extra content items for the MCP result only (e.g. `resource_link`s to what the call created). */
  resourceLinks?: (value: unknown) => import('../call/tool-result.js').McpContent[];
}

/** What `McpTool` returns when its preflight is a method: it takes only a method that accepts the preflight's parameters first. */
export type McpPreflightedTool<P extends unknown[]> = <T extends (...args: [...P, ...never[]]) => unknown>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => TypedPropertyDescriptor<T>;

/**
 * Marks a method of an `@Injectable()` service as an MCP tool. The method keeps its body and its
 * callers; its parameters say where each value comes from (`@McpArg`, `@McpInput`, `@McpCaller`, …).
 * With `preflight: Service.prototype.check`, the tool's method must accept `check`'s parameters as
 * its first ones (a compile error otherwise; the boot check of their decorators stays).
 */
export function McpTool<P extends unknown[]>(
  options: McpToolOptions & { preflight: McpPreflight<P> },
): McpPreflightedTool<P>;
/** @deprecated `preflight` as a method name: give the method itself (`Service.prototype.check`), which the compiler checks. */
export function McpTool(options: McpToolOptions & { preflight: string }): MethodDecorator;
export function McpTool(options: McpToolOptions & { preflight?: undefined }): MethodDecorator;
export function McpTool(options: McpToolOptions): MethodDecorator;
export function McpTool(
  options: McpToolOptions,
): (target: object, key: string | symbol, descriptor: PropertyDescriptor) => PropertyDescriptor {
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(MCP_TOOL_METADATA, options, descriptor.value as object);
    return descriptor;
  };
}
