import { Injectable } from '@nestjs/common';
import { completionKey, McpCatalogRegistry } from '../discovery/catalog-registry.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import { invalidParams, isPlainObject, type JsonObject, stringField } from '../protocol/index.js';
import { AccessPolicy } from '../access/access-policy.js';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { MethodInvoker } from './method-invoker.js';

const MAX_VALUES = 100;

/**
 * `completion/complete` (both eras): a prompt argument or a template variable is completed by its
 * provider, or from the argument's enum; a reference the caller cannot see is unknown (-32602).
 */
@Injectable()
export class CompletionHandler {
  constructor(
    private readonly catalog: McpCatalogRegistry,
    private readonly access: AccessPolicy,
    private readonly invoker: MethodInvoker,
    private readonly config: McpConfig,
  ) {}

  handlers(): McpMethodHandler[] {
    return [{ method: 'completion/complete', eras: ['modern', 'legacy'], handle: (call) => this.complete(call) }];
  }

  /**
   * What `ref` and the argument name complete: the provider's key and, for a prompt argument, its
   * declared values. A reference the caller cannot use reads as unknown, like a missing one.
   */
  private completed(
    call: McpCall,
    ref: JsonObject,
    argumentName: string,
  ): { key: string; candidates?: readonly string[] } {
    const refType = stringField(ref, 'type');
    const refName = stringField(ref, 'name');
    const refUri = stringField(ref, 'uri');
    const unknown = (): McpRejectionError =>
      new McpRejectionError(invalidParams(call.id, 'Invalid params: unknown completion reference'));
    if (refType === 'ref/prompt' && refName !== undefined) {
      const prompt = this.catalog.prompts.get(refName);
      if (!prompt) throw unknown();
      const { scopes, roles } = prompt;
      if (this.access.decide(call.principal, { kind: 'prompt', name: prompt.name, scopes, roles }) !== 'allowed')
        throw unknown();
      const declared = prompt.arguments.find((a) => a.name === argumentName);
      if (!declared) throw unknown();
      return {
        key: completionKey({ type: 'ref/prompt', name: prompt.name }, argumentName),
        candidates: declared.enum,
      };
    }
    if (refType === 'ref/resource' && refUri !== undefined) {
      const template = this.catalog.templates.find((t) => t.compiled.template === refUri);
      if (!template) throw unknown();
      const { scopes, roles } = template;
      if (this.access.decide(call.principal, { kind: 'resource', name: refUri, scopes, roles }) !== 'allowed')
        throw unknown();
      if (!template.compiled.variables.includes(argumentName)) throw unknown();
      return { key: completionKey({ type: 'ref/resource', uri: template.compiled.template }, argumentName) };
    }
    throw unknown();
  }

  private async complete(call: McpCall): Promise<JsonObject> {
    const { ref, argument: given, context } = call.params;
    const argumentName = stringField(given, 'name');
    const argumentValue = stringField(given, 'value');
    if (!isPlainObject(ref) || argumentName === undefined || argumentValue === undefined) {
      throw new McpRejectionError(
        invalidParams(call.id, 'Invalid params: "ref" and "argument" {name, value} are required'),
      );
    }
    const argument = { name: argumentName, value: argumentValue };
    const { key, candidates } = this.completed(call, ref, argument.name);
    const provider = this.catalog.completions.get(key);
    let values: string[];
    if (provider) {
      const others =
        isPlainObject(context) && isPlainObject(context.arguments) ? (context.arguments as Record<string, string>) : {};
      // What the provider throws is answered by the one map (errors.ts), in the dispatcher.
      const result = await this.invoker.invoke(provider, { value: argument.value }, call, {
        name: argument.name,
        arguments: others,
      });
      values = Array.isArray(result) ? result.filter((v): v is string => typeof v === 'string') : [];
    } else {
      values = (candidates ?? []).filter((v) => v.startsWith(argument.value));
    }
    return {
      completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES },
    };
  }
}
