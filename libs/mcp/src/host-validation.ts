import { type PipeTransform, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import type { ApplicationConfig } from '@nestjs/core';
import { McpValidationPipe } from './validation/mcp-validation.pipe.js';

/** What tool, prompt and resource arguments are validated with, and whether schemas are closed. */
export interface ArgumentValidation {
  readonly pipe: PipeTransform;
  /** `forbidNonWhitelisted`: published input schemas are closed (`additionalProperties: false`). */
  readonly closed: boolean;
}

/**
 * The validation of the REST routes, by default (issue 28, point 6): the module's `validationPipe`
 * or `validation` when given; else the host's own global ValidationPipe — the one given to
 * `app.useGlobalPipes(…)` or provided as `APP_PIPE`, both kept by Nest's ApplicationConfig, which
 * every module can inject — so the same DTO refuses the same input with the same message on the
 * REST route and the tool; else `{ transform: true }`. The pipes the module makes are
 * McpValidationPipe (validation/mcp-validation.pipe.ts): the same answers, in the same tick. Read at bootstrap's end (app.init), after
 * main.ts registered its pipes.
 */
export function argumentValidation(
  options: { validationPipe?: PipeTransform; validation?: ValidationPipeOptions },
  app: ApplicationConfig | undefined,
): ArgumentValidation {
  const given = options.validation;
  if (options.validationPipe || given) {
    return {
      pipe: options.validationPipe ?? new McpValidationPipe(given),
      closed: given?.forbidNonWhitelisted === true,
    };
  }
  const host = app?.getGlobalPipes().find((pipe): pipe is ValidationPipe => pipe instanceof ValidationPipe);
  if (host) {
    // ValidationPipe keeps its options protected; forbidNonWhitelisted is read only to shape the schemas.
    const validatorOptions = (host as unknown as { validatorOptions?: { forbidNonWhitelisted?: boolean } })
      .validatorOptions;
    return { pipe: host, closed: validatorOptions?.forbidNonWhitelisted === true };
  }
  return { pipe: new McpValidationPipe({ transform: true }), closed: false };
}
