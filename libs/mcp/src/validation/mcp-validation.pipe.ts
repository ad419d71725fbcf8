import {
  type ArgumentMetadata,
  Injectable,
  type Type,
  ValidationPipe,
  type ValidationPipeOptions,
} from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { plainEntries } from './plain-input.js';
import { isPlainField, planOf } from './validation-plan.js';
import { validateNow } from './validation-executor.js';

/**
 * Nest's ValidationPipe, answering in the same tick when it can (issue 32; libs/mcp/docs/tools.md,
 * "Validation cost"). For a plain object of scalars (a tool's usual arguments) bound to a class
 * that class-transformer would only copy, the instance is made the way plainToInstance makes it
 * (`new metatype()`, each field assigned) and validated by class-validator's own executor without
 * its promise. Anything else — nested objects, `@Type`/`@Transform`, a pending async validator, a
 * subclass's own `validate`, an invalid value — goes through `super.transform` unchanged, so every
 * refusal is the pipe's own error, built by its exceptionFactory.
 *
 * A drop-in for ValidationPipe: `app.useGlobalPipes(new McpValidationPipe({...}))` gives the REST
 * routes the same quick path. `transform` returns the value itself or a promise; Nest awaits both.
 */
@Injectable()
export class McpValidationPipe extends ValidationPipe {
  /** A class-validator or class-transformer package of the host's own is used only on the pipe's own path. */
  private readonly ownPackages: boolean;

  constructor(options?: ValidationPipeOptions) {
    super(options);
    this.ownPackages = !options?.validatorPackage && !options?.transformerPackage;
  }

  // The override may answer synchronously: Nest's pipe consumers (the router, MethodInvoker) await any value.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override transform(value: unknown, metadata: ArgumentMetadata): any {
    const entity = this.quickTransform(value, metadata);
    return entity !== undefined ? entity : super.transform(value, metadata);
  }

  /** The validated instance, or `undefined` when the pipe's own path must answer. */
  private quickTransform(value: unknown, metadata: ArgumentMetadata): object | undefined {
    const metatype = (this.expectedType ?? metadata.metatype) as Type | undefined;
    if (!metatype || !this.isTransformEnabled || !this.ownPackages || this.transformOptions) return undefined;
    if (!this.hasDefaultSteps()) return undefined;
    if (!this.toValidate(this.expectedType ? { ...metadata, metatype } : metadata)) return undefined;
    const entries = plainEntries(value);
    if (!entries) return undefined;
    const plan = planOf(metatype);
    if (!plan.copiesFields) return undefined;
    const entity = new metatype() as Record<string, unknown>;
    if (entity.constructor !== metatype) return undefined;
    for (const [key, field] of entries) {
      if (!plan.plainFields.has(key) && !isPlainField(metatype, key)) return undefined;
      if (typeof entity[key] === 'function') return undefined;
      entity[key] = field;
    }
    const errors: ValidationError[] | undefined = validateNow(entity, this.validatorOptions);
    return errors?.length === 0 ? entity : undefined;
  }

  /** A subclass that changes how the pipe validates or cleans a value keeps its own path for every value. */
  private hasDefaultSteps(): boolean {
    const base = ValidationPipe.prototype as unknown as Record<'validate' | 'stripProtoKeys', unknown>;
    return this.validate === base.validate && this.stripProtoKeys === base.stripProtoKeys;
  }
}
