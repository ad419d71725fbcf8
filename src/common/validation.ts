import { type ArgumentMetadata, Injectable, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { getMetadataStorage, registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { JSONSchema, McpValidationPipe } from '@kobana/nest-mcp';
import { ApiError, type ApiErrorItem } from './api-error.js';
import { findUnsafeText, isSafeScalar, SUSPECT } from './unsafe-text.js';
import { memoiseValidationMetadata } from './validation-metadata-memo.js';

memoiseValidationMetadata();

function flatten(errors: ValidationError[], prefix = ''): ApiErrorItem[] {
  const items: ApiErrorItem[] = [];
  for (const error of errors) {
    const param = prefix ? `${prefix}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      items.push({ code: 'validation_failed', title: 'Validation failed', detail: message, param });
    }
    if (error.children?.length) items.push(...flatten(error.children, param));
  }
  return items;
}

/**
 * One ValidationPipe configuration for every door: the REST routes use it globally and McpModule
 * validates tool arguments with it, so a bad field gets the same 422 envelope either way.
 */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: false,
  exceptionFactory: (errors) => ApiError.many(422, flatten(errors)),
};

/** Free-form JSON fields (`@MaxJsonBytes`) by class: their content is data, not DTOs. */
const FREE_FORM = new Map<Function, Map<string, number>>();
/** Moves whenever a free-form field is declared: the pipe's plans of classes read before are read again. */
let freeFormGeneration = 0;

/**
 * The ValidationPipe of both doors, plus two things class-validator cannot do for free-form input:
 * - no string (value or key) anywhere in the input holds NUL or a lone surrogate;
 * - free-form JSON fields and undeclared fields are not walked by class-transformer (which copies
 *   every nested value, ~100 ms for 16,000 small arrays): a free-form field is size-checked and
 *   set aside during the DTO pass, then put back as parsed; an undeclared one is still reported,
 *   with its value never walked.
 * McpValidationPipe answers a flat DTO in the same tick (issue 32), so this one awaits nothing of its own.
 */
@Injectable()
export class KaduValidationPipe extends McpValidationPipe {
  /** Per DTO class: its declared fields and its free-form ones (both fixed once the class is defined). */
  private readonly plans = new Map<Function, DtoPlan>();

  constructor() {
    super(VALIDATION_OPTIONS);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override transform(value: unknown, metadata: ArgumentMetadata): any {
    if (metadata.type === 'custom') return super.transform(value, metadata);
    const metatype = metadata.metatype;
    // The usual tool call or REST body, in one pass: every step below would hand it on unchanged.
    if (metatype && isPlainObject(value) && this.isSafeOwnShape(value, this.planOf(metatype)))
      return super.transform(value, metadata);
    const unsafe = findUnsafeText(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
    if (unsafe) {
      const param = unsafe.path || metadata.data || metadata.type;
      throw new ApiError(
        422,
        'validation_failed',
        'Validation failed',
        `${param} must not contain ${unsafe.problem}`,
        param,
      );
    }
    if (!metatype || metadata.data || value === null || typeof value !== 'object' || Array.isArray(value))
      return super.transform(value, metadata);
    const { known, freeForm } = this.planOf(metatype);
    // Not a DTO (e.g. `@Query() q: Record<string, string>`): nothing to shape.
    if (known.size === 0) return super.transform(value, metadata);
    // Every field declared and none free-form: the copy below would be the value itself, field for
    // field in the same order, so the value is validated as it is (validation.spec.ts).
    if (this.isItsOwnShape(value, known, freeForm)) return super.transform(value, metadata);
    const shaped: Record<string, unknown> = {};
    const setAside: [string, unknown][] = [];
    for (const [key, field] of Object.entries(value)) {
      const limit = freeForm.get(key);
      if (limit !== undefined && field !== null && typeof field === 'object') {
        if (Buffer.byteLength(JSON.stringify(field)) > limit) {
          throw new ApiError(
            422,
            'validation_failed',
            'Validation failed',
            `${key} must be at most ${limit} bytes as JSON`,
            key,
          );
        }
        // A placeholder of the same kind keeps @IsObject's verdict (an array is still refused).
        shaped[key] = Array.isArray(field) ? [] : {};
        if (!Array.isArray(field)) setAside.push([key, field]);
      } else {
        shaped[key] = known.has(key) ? field : null;
      }
    }
    const result: unknown = super.transform(shaped, metadata);
    if (setAside.length === 0) return result;
    if (isThenable(result)) return result.then((validated) => restored(validated, setAside));
    return restored(result, setAside);
  }

  /**
   * Whether shaping `value` (the loop above) would give a copy of it: a plain object
   * (Object.prototype: the copy's own) whose every key is a declared field and none a free-form
   * field holding an object. Protected for the equivalence test, which turns it off.
   */
  protected isItsOwnShape(value: object, known: ReadonlySet<string>, freeForm: ReadonlyMap<string, number>): boolean {
    if (Object.getPrototypeOf(value) !== Object.prototype) return false;
    for (const key of Object.keys(value)) {
      if (!known.has(key) || TREATED_APART.has(key)) return false;
      if (freeForm.size > 0 && freeForm.has(key)) {
        const field = (value as Record<string, unknown>)[key];
        if (field !== null && typeof field === 'object') return false;
      }
    }
    return true;
  }

  /**
   * Whether `value` (a plain object) holds only fields the DTO declares that are neither free-form
   * nor treated apart, nor named with a NUL or a surrogate, each a scalar free of them. Such a value
   * passes findUnsafeText (clearlySafe's own test) and is its own shape (isItsOwnShape), so every
   * step of the general path would hand it to the pipe unchanged: one loop instead of two, no
   * pattern run on a declared key (validation.spec.ts compares both paths on drawn bodies).
   * Protected for that test, which turns it off.
   */
  protected isSafeOwnShape(value: object, plan: DtoPlan): boolean {
    const { plainFields } = plan;
    for (const key of Object.keys(value)) {
      if (!plainFields.has(key) || !isSafeScalar((value as Record<string, unknown>)[key])) return false;
    }
    return true;
  }

  private planOf(metatype: Function): DtoPlan {
    let plan = this.plans.get(metatype);
    if (!plan || plan.freeFormGeneration !== freeFormGeneration) {
      const known = plan?.known ?? declaredFieldsOf(metatype);
      const freeForm = freeFormFields(metatype);
      const plainFields = new Set(
        [...known].filter((key) => !freeForm.has(key) && !TREATED_APART.has(key) && !SUSPECT.test(key)),
      );
      plan = { known, freeForm, plainFields, freeFormGeneration };
      this.plans.set(metatype, plan);
    }
    return plan;
  }
}

export interface DtoPlan {
  readonly known: ReadonlySet<string>;
  readonly freeForm: ReadonlyMap<string, number>;
  /** The declared fields isSafeOwnShape accepts: none free-form, treated apart, or named with NUL or a surrogate. */
  readonly plainFields: ReadonlySet<string>;
  /** The FREE_FORM generation it was read at: a `@MaxJsonBytes` applied since reads it again. */
  readonly freeFormGeneration: number;
}

function declaredFieldsOf(metatype: Function): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(metatype, '', true, false)
      .map((m) => m.propertyName),
  );
}

/** Keys the pipe's own path treats apart (stripProtoKeys): a value holding one is shaped as before. */
const TREATED_APART = new Set(['__proto__', 'prototype', 'constructor']);

/** An object whose prototype is Object.prototype (a parsed JSON body's); null-prototype ones take the general path. */
function isPlainObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

function restored(validated: unknown, setAside: readonly [string, unknown][]): unknown {
  for (const [key, field] of setAside) (validated as Record<string, unknown>)[key] = field;
  return validated;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function freeFormFields(metatype: Function): Map<string, number> {
  const fields = new Map<string, number>();
  for (
    let type: Function | null = metatype;
    type && type !== Function.prototype;
    type = Object.getPrototypeOf(type) as Function | null
  ) {
    for (const [field, limit] of FREE_FORM.get(type) ?? []) if (!fields.has(field)) fields.set(field, limit);
  }
  return fields;
}

/**
 * Like `@IsOptional()`, but only an absent field skips validation: `null` is validated (and so
 * refused by `@IsString()` & co.) instead of reaching the service as a value nobody expected.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/**
 * A free-form JSON field no larger than `bytes` once serialized (bounds storage and validation
 * work). KaduValidationPipe checks it before the DTO pass and keeps its content out of that pass.
 */
export function MaxJsonBytes(bytes: number, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    const fields = FREE_FORM.get(target.constructor) ?? new Map<string, number>();
    fields.set(propertyName as string, bytes);
    FREE_FORM.set(target.constructor, fields);
    freeFormGeneration++;
    registerDecorator({
      name: 'maxJsonBytes',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [bytes],
      options: { message: `$property must be at most ${bytes} bytes as JSON`, ...options },
      validator: {
        validate: (value: unknown) => value === undefined || Buffer.byteLength(JSON.stringify(value) ?? '') <= bytes,
      },
    });
  };
}

/**
 * The JSON Schema of a free-form object field (one with `@MaxJsonBytes`): an object, or also
 * `null` where null means "none". Without it the converter turns the custom validator's `Object`
 * type into `{"$ref": "#/$defs/Object"}`, a reference that names nothing (tool schemas and the
 * API description alike).
 */
export function FreeFormObject(description?: string, options: { nullable?: boolean } = {}): PropertyDecorator {
  const type: ('object' | 'null')[] | 'object' = options.nullable ? ['object', 'null'] : 'object';
  return JSONSchema(() => ({ type, ...(description ? { description } : {}) })) as PropertyDecorator;
}
