import type { ValidationError, ValidationPipeOptions } from '@nestjs/common';
import { ApiError, type ApiErrorItem } from './api-error.js';

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
