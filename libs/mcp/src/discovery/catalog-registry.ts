import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { McpConfig } from '../mcp-config.js';
import { DtoSchemaBuilder } from './dto-schema.js';
import { bindMethod, type MethodBinding } from './method-binding.js';
import {
  MCP_COMPLETION_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  type McpCompletionOptions,
  type McpPromptArgument,
  type McpPromptOptions,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
} from './mcp-catalog.decorators.js';
import { appContentMeta, MCP_APP_MIME_TYPE } from './mcp-app.js';
import { type DecoratedMethod, scanDecoratedMethods } from './scan-providers.js';
import { type CompiledTemplate, compileUriTemplate } from './uri-template.js';
import { TOOL_NAME_PATTERN } from './tool-registry.js';

interface Access {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}

export interface RegisteredResource extends MethodBinding, Access {
  readonly uri: string;
  readonly mimeType?: string;
  /** An MCP App's `_meta` for its `resources/read` contents (`@McpResource({ app })`). */
  readonly contentMeta?: Readonly<Record<string, unknown>>;
  readonly listing: Readonly<Record<string, unknown>>;
}

export interface RegisteredTemplate extends MethodBinding, Access {
  readonly name: string;
  readonly compiled: CompiledTemplate;
  readonly bind: Readonly<Record<string, string>>;
  readonly mimeType?: string;
  readonly listing: Readonly<Record<string, unknown>>;
}

export interface RegisteredPrompt extends MethodBinding, Access {
  readonly name: string;
  readonly arguments: readonly McpPromptArgument[];
  readonly listing: Readonly<Record<string, unknown>>;
}

export interface RegisteredCompletion extends MethodBinding {
  readonly key: string;
}

export function completionKey(ref: McpCompletionOptions['ref'], argument: string): string {
  return ref.type === 'ref/prompt' ? `prompt\0${ref.name}\0${argument}` : `resource\0${ref.uri}\0${argument}`;
}

/**
 * Resources, resource templates, prompts and completion providers, discovered once at bootstrap
 * like tools. Duplicate URIs, templates or names stop the app with both places named.
 */
/** Where a decorated method is declared, as registration errors name it. */
const where = (m: DecoratedMethod<unknown>): string => `${m.metatype.name}.${m.methodName}`;

@Injectable()
export class McpCatalogRegistry implements OnModuleInit {
  readonly resources = new Map<string, RegisteredResource>();
  readonly templates: RegisteredTemplate[] = [];
  readonly prompts = new Map<string, RegisteredPrompt>();
  readonly completions = new Map<string, RegisteredCompletion>();
  /** The same resources and prompts in discovery order, as arrays built once for the list methods. */
  resourceList: readonly RegisteredResource[] = [];
  promptList: readonly RegisteredPrompt[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly config: McpConfig,
  ) {}

  onModuleInit(): void {
    const schemas = new DtoSchemaBuilder();
    this.registerResources(schemas, this.config.closedSchemas);
    this.registerTemplates(schemas);
    this.registerPrompts(schemas);
    this.registerCompletions(schemas);
    this.freeze();
  }

  private scan<O>(key: string): DecoratedMethod<O>[] {
    return scanDecoratedMethods<O>(this.discovery, this.scanner, key);
  }

  private registerResources(schemas: DtoSchemaBuilder, closed: boolean): void {
    for (const m of this.scan<McpResourceOptions>(MCP_RESOURCE_METADATA)) {
      const o = m.options;
      const existing = this.resources.get(o.uri);
      if (existing)
        throw new Error(`@McpResource uri '${o.uri}' is declared twice: on ${existing.location} and on ${where(m)}`);
      const binding = bindMethod(m, schemas, { label: 'resource', name: o.name, closed });
      this.resources.set(o.uri, {
        ...binding,
        ...access(o),
        uri: o.uri,
        ...appResource(o, where(m)),
      });
    }
  }

  private registerTemplates(schemas: DtoSchemaBuilder): void {
    for (const m of this.scan<McpResourceTemplateOptions>(MCP_RESOURCE_TEMPLATE_METADATA)) {
      const o = m.options;
      const clash = this.templates.find((t) => t.compiled.template === o.uriTemplate || t.name === o.name);
      if (clash)
        throw new Error(
          `@McpResourceTemplate '${o.uriTemplate}' (${o.name}) is declared twice: on ${clash.location} and on ${where(m)}`,
        );
      const compiled = compileUriTemplate(o.uriTemplate, o.variables);
      const binding = bindMethod(m, schemas, { label: 'template', name: o.name, closed: false });
      const bind = Object.fromEntries(compiled.variables.map((v) => [v, o.bind?.[v] ?? v]));
      const missing = Object.values(bind).filter((arg) => !binding.argNames.includes(arg));
      if (missing.length)
        throw new Error(
          `${where(m)}: URI variable(s) of ${o.uriTemplate} need @McpArg parameter(s) ${missing.join(', ')}`,
        );
      this.templates.push({
        ...binding,
        ...access(o),
        name: o.name,
        compiled,
        bind,
        mimeType: o.mimeType,
        listing: listing(o, { uriTemplate: o.uriTemplate }),
      });
    }
  }

  private registerPrompts(schemas: DtoSchemaBuilder): void {
    for (const m of this.scan<McpPromptOptions>(MCP_PROMPT_METADATA)) {
      const o = m.options;
      if (!TOOL_NAME_PATTERN.test(o.name))
        throw new Error(`@McpPrompt name '${o.name}' on ${where(m)} must match ${TOOL_NAME_PATTERN}`);
      const existing = this.prompts.get(o.name);
      if (existing)
        throw new Error(`@McpPrompt name '${o.name}' is declared twice: on ${existing.location} and on ${where(m)}`);
      const binding = bindMethod(m, schemas, { label: 'prompt', name: o.name, closed: false });
      const args = o.arguments ?? [];
      const entry = {
        name: o.name,
        ...(o.title ? { title: o.title } : {}),
        ...(o.description ? { description: o.description } : {}),
        arguments: args.map((a) => ({
          name: a.name,
          ...(a.description ? { description: a.description } : {}),
          required: a.required === true,
        })),
      };
      this.prompts.set(o.name, { ...binding, ...access(o), name: o.name, arguments: args, listing: entry });
    }
  }

  private registerCompletions(schemas: DtoSchemaBuilder): void {
    for (const m of this.scan<McpCompletionOptions[]>(MCP_COMPLETION_METADATA)) {
      const binding = bindMethod(m, schemas, {
        label: 'completion',
        name: `${m.metatype.name}_${m.methodName}`,
        closed: false,
      });
      for (const options of m.options) {
        const key = completionKey(options.ref, options.argument);
        const existing = this.completions.get(key);
        if (existing)
          throw new Error(
            `completion for ${options.argument} is declared twice: on ${existing.location} and on ${where(m)}`,
          );
        this.completions.set(key, { ...binding, key });
      }
    }
  }

  private freeze(): void {
    this.resourceList = [...this.resources.values()];
    this.promptList = [...this.prompts.values()];
  }

  /** The fixed resource or the first template that matches `uri` strictly. */
  resolve(
    uri: string,
  ): { resource: RegisteredResource } | { template: RegisteredTemplate; values: Record<string, string> } | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { resource };
    for (const template of this.templates) {
      const values = template.compiled.match(uri);
      if (values) return { template, values };
    }
    return undefined;
  }
}

function access(o: { scopes?: readonly string[]; roles?: readonly string[] }): Access {
  return { scopes: [...(o.scopes ?? [])], roles: [...(o.roles ?? [])] };
}

/** An app resource is HTML of the app profile under `ui://`; any other keeps its own mime type. */
function appResource(o: McpResourceOptions, location: string) {
  if (!o.app) return { mimeType: o.mimeType, listing: listing(o, { uri: o.uri }) };
  if (!o.uri.startsWith('ui://'))
    throw new Error(`@McpResource '${o.uri}' on ${location}: an app's uri must be ui://…`);
  const mimeType = MCP_APP_MIME_TYPE;
  return { mimeType, contentMeta: appContentMeta(o.app), listing: listing({ ...o, mimeType }, { uri: o.uri }) };
}

function listing(
  o: { name: string; title?: string; description?: string; mimeType?: string },
  key: Record<string, string>,
) {
  return {
    ...key,
    name: o.name,
    ...(o.title ? { title: o.title } : {}),
    ...(o.description ? { description: o.description } : {}),
    ...(o.mimeType ? { mimeType: o.mimeType } : {}),
  };
}
