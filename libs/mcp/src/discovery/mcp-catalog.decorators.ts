/** Who may see and use a resource, template or prompt: the same decision as for tools. */
export interface McpAccessOptions {
  scopes?: readonly string[];
  roles?: readonly string[];
}

export const MCP_RESOURCE_METADATA = 'mcp:resource';
export const MCP_RESOURCE_TEMPLATE_METADATA = 'mcp:resource-template';
export const MCP_PROMPT_METADATA = 'mcp:prompt';
export const MCP_COMPLETION_METADATA = 'mcp:completion';

export interface McpResourceOptions extends McpAccessOptions {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /**
   * An MCP App (`io.modelcontextprotocol/ui`): the method returns the app's HTML, served as
   * `text/html;profile=mcp-app` with this `_meta.ui` (CSP, border); the uri must be `ui://…`.
   */
  app?: import('./mcp-app.js').McpAppResourceOptions;
}

export interface McpResourceTemplateOptions extends McpAccessOptions {
  /** RFC 6570 level 1, e.g. `kobana://kadu/tasks/{id}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** URI variable → the method's `@McpArg` name, when they differ (`{ id: 'task_id' }`). */
  bind?: Record<string, string>;
  /**
   * Per-variable pattern a value must match in full. Default: one path segment without `/ ? # %`
   * or control characters, so a variable can never reach into another path.
   */
  variables?: Record<string, RegExp>;
}

export interface McpPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  /** Allowed values; also what completion/complete suggests for this argument. */
  enum?: readonly string[];
}

export interface McpPromptOptions extends McpAccessOptions {
  name: string;
  title?: string;
  description?: string;
  arguments?: readonly McpPromptArgument[];
}

export interface McpCompletionOptions {
  /** A prompt name or a resource template's `uriTemplate`. */
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  /** The prompt argument or URI variable this method completes. */
  argument: string;
}

function mark(key: string, options: object): MethodDecorator {
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(key, options, descriptor.value as object);
    return descriptor;
  };
}

/**
 * A fixed resource. The method's return value becomes the contents: a string (text), a Buffer
 * (blob), an `McpResourceContents`, or any other value as JSON.
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator => mark(MCP_RESOURCE_METADATA, options);

/** A resource template; its URI variables are the method's `@McpArg`s. */
export const McpResourceTemplate = (options: McpResourceTemplateOptions): MethodDecorator =>
  mark(MCP_RESOURCE_TEMPLATE_METADATA, options);

/** A prompt; its arguments are the method's `@McpArg`s; it returns messages (or one string). */
export const McpPrompt = (options: McpPromptOptions): MethodDecorator => mark(MCP_PROMPT_METADATA, options);

/**
 * Completes one prompt argument or URI variable: `@McpArg('value')` is the partial value; returns
 * candidates. Stack it to complete several arguments with one method.
 */
export const McpCompletion =
  (options: McpCompletionOptions): MethodDecorator =>
  (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const list: McpCompletionOptions[] = Reflect.getMetadata(MCP_COMPLETION_METADATA, method) ?? [];
    Reflect.defineMetadata(MCP_COMPLETION_METADATA, [...list, options], method);
    return descriptor;
  };
