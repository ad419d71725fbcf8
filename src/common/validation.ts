import { type ArgumentMetadata, Injectable, type ValidationError, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { ApiError, type ApiErrorItem } from './api-error.js';
import { findUnsafeText } from './unsafe-text.js';

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

/**
 * The ValidationPipe of both doors, plus one check class-validator cannot express for nested
 * free-form objects: no string (value or key) anywhere in the input holds NUL or a lone surrogate.
 */
@Injectable()
export class KaduValidationPipe extends ValidationPipe {
  constructor() {
    super(VALIDATION_OPTIONS);
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const unsafe = findUnsafeText(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
      if (unsafe) {
        const param = unsafe.path || metadata.data || metadata.type;
        throw new ApiError(422, 'validation_failed', 'Validation failed', `${param} must not contain ${unsafe.problem}`, param);
      }
    }
    return super.transform(value, metadata);
  }
}

/**
 * Like `@IsOptional()`, but only an absent field skips validation: `null` is validated (and so
 * refused by `@IsString()` & co.) instead of reaching the service as a value nobody expected.
 */
export function Omittable(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/** A free-form JSON field no larger than `bytes` once serialized (bounds storage and validation work). */
export function MaxJsonBytes(bytes: number, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
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
}
