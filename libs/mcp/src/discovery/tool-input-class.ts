import { type Type } from '@nestjs/common';
import { IsBoolean, IsDefined, IsNumber, IsString, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { McpArgOptions } from './mcp-param.decorators.js';

export interface ArgSpec {
  readonly name: string;
  /** The parameter's design type (String, Number, Boolean, …). */
  readonly type: unknown;
  readonly options: McpArgOptions;
}

function defaultValidators(type: unknown): PropertyDecorator[] {
  if (type === String) return [IsString()];
  if (type === Number) return [IsNumber()];
  if (type === Boolean) return [IsBoolean()];
  return [IsDefined()];
}

/**
 * One class per tool that holds its whole flat input: the DTO's fields (by inheritance) plus one
 * property per `@McpArg`, decorated like a DTO property. The app's ValidationPipe then validates a
 * call in one pass, with its own messages and exceptionFactory, and the JSON Schema comes from the
 * same metadata — one source for both.
 */
export function buildToolInputClass(toolName: string, dto: Type | undefined, args: readonly ArgSpec[]): Type {
  const Base: Type = dto ?? class {};
  const Input = class extends Base {};
  Object.defineProperty(Input, 'name', { value: `McpToolInput_${toolName.replace(/[^A-Za-z0-9_]/g, '_')}` });
  for (const arg of args) {
    const decorators = [...(arg.options.validators ?? defaultValidators(arg.type))];
    // Optional means it may be left out; a `null` is still validated (the schema says its type).
    if (arg.options.required === false) decorators.unshift(ValidateIf((_object, value) => value !== undefined));
    if (arg.options.description)
      decorators.push(JSONSchema({ description: arg.options.description }) as PropertyDecorator);
    Reflect.defineMetadata('design:type', arg.type, Input.prototype, arg.name);
    for (const decorate of decorators) decorate(Input.prototype, arg.name);
  }
  return Input;
}
