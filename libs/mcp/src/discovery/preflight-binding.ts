import type { Type } from '@nestjs/common';
import { parameterBindings, type MethodBinding } from './method-binding.js';
import type { McpParamBinding } from './mcp-param.decorators.js';

/**
 * Checks that a tool's preflight can be called with the tool's own parameters, which is how it is
 * called (ToolInvoker): with no parameter decorators of its own it inherits the tool's binding; with
 * some, they must be the tool's, parameter for parameter (it may take only the first ones). A preflight copied from the README (now docs/asking-the-person.md) failed
 * at boot with a message that called it "(tool)" (issue 28, point 4): the errors here say
 * "preflight" and name both methods.
 */
export function checkPreflight(tool: MethodBinding, toolName: string, preflight: string): void {
  const metatype = tool.wrapper.metatype as Type;
  const method = (metatype.prototype as Record<string, unknown>)[preflight] as (...a: unknown[]) => unknown;
  const where = `preflight ${metatype.name}.${preflight} of tool '${toolName}' (${tool.location})`;
  const own = parameterBindings(metatype, preflight, where);
  const byIndex = new Map(tool.bindings.map((b) => [b.index, b]));
  if (own.length === 0) {
    if (method.length > tool.arity) {
      throw new Error(
        `${where} takes ${method.length} parameters but the tool binds ${tool.arity}: a preflight is called with its tool's parameters`,
      );
    }
    return;
  }
  // It may take fewer parameters than the tool (the first ones), each bound as the tool binds it.
  const arity = Math.max(method.length, ...own.map((b) => b.index + 1));
  for (let index = 0; index < arity; index++) {
    const mine = own.find((b) => b.index === index);
    const theirs = byIndex.get(index);
    if (mine && theirs && sameBinding(mine, theirs)) continue;
    throw new Error(
      `${where} binds parameter #${index + 1} as ${describe(mine)}, the tool as ${describe(theirs)}: a preflight is ` +
        "called with its tool's parameters, so give it the tool's parameter decorators or none",
    );
  }
}

function sameBinding(a: McpParamBinding, b: McpParamBinding): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'arg' && b.kind === 'arg') return a.name === b.name;
  if (a.kind === 'caller' && b.kind === 'caller') return String(a.project) === String(b.project);
  if (a.kind === 'host' && b.kind === 'host')
    return a.factory === b.factory && JSON.stringify(a.data) === JSON.stringify(b.data);
  return true;
}

function describe(binding: McpParamBinding | undefined): string {
  if (!binding) return 'nothing';
  switch (binding.kind) {
    case 'arg':
      return `@McpArg('${binding.name}')`;
    case 'caller':
      return binding.project === undefined
        ? '@McpCaller()'
        : typeof binding.project === 'string'
          ? `@McpCaller('${binding.project}')`
          : '@McpCaller(<function>)';
    case 'host':
      return "the app's own parameter decorator";
    case 'input':
      return '@McpInput()';
    case 'context':
      return '@McpContext()';
    case 'inputs':
      return '@McpInputs()';
    case 'request':
      return '@McpHttpRequest()';
  }
}
