import type { Type } from '@nestjs/common';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { DtoSchemaBuilder } from './dto-schema.js';

type Schema = Record<string, unknown>;

/** @nestjs/swagger's metadata key for `@ApiResponse` / `@ApiOkResponse` on a method (read, never imported). */
const SWAGGER_RESPONSES = 'swagger/apiResponse';
const SUCCESS_STATUSES = ['200', '201', '202'];

/**
 * What a tool promises to return (`outputSchema`), and the check that holds it to that promise.
 * A value the check refuses is a server bug: the invoker logs it and answers the masked internal
 * error instead of sending a result that contradicts its own schema (spec README §Decisions 2026-12).
 */
export interface OutputContract {
  readonly schema: Readonly<Schema>;
  /** The DTO it was made from (absent for a raw `outputSchema`), e.g. for an API description. */
  readonly dto?: Type;
  /** Undefined when `value` fits the schema; otherwise what does not fit, for the log. */
  check(value: unknown): string | undefined;
}

/**
 * The response DTO of a tool method: `@McpTool({ output })`, else the class of a 2xx
 * `@ApiResponse({ type })` on the same method. `design:returntype` cannot serve: an async method's
 * is `Promise`, and generics (`Envelope<T>`) are erased.
 */
export function outputDtoOf(explicit: Type | undefined, method: object): Type | undefined {
  if (explicit) return explicit;
  const responses = Reflect.getMetadata(SWAGGER_RESPONSES, method) as Record<string, { type?: unknown }> | undefined;
  for (const status of SUCCESS_STATUSES) {
    const type = responses?.[status]?.type;
    if (typeof type === 'function') return type as Type;
  }
  return undefined;
}

// One compiler for the app, made on the first check. `strict: false` because
// class-validator-jsonschema emits keywords Ajv's strict mode does not know (e.g. format names).
let compiler: Ajv2020 | undefined;

/**
 * The contract of a DTO (same converter as input schemas, open to extra fields) or of a raw schema.
 * Built on first use, then kept (issue 32, start-up): converting every tool's output DTO and
 * compiling its check cost a replica's start-up work that `tools/list` and the first call of each
 * tool can do instead, with the same answers.
 */
export function outputContract(
  schemas: DtoSchemaBuilder,
  dto: Type | undefined,
  raw: Schema | undefined,
  enforce: boolean,
): OutputContract | undefined {
  if (!raw && !dto) return undefined;
  let schema: Schema | undefined;
  let validate: ValidateFunction | undefined;
  const schemaOnce = (): Schema => (schema ??= raw ?? schemas.build(dto!));
  return {
    get schema() {
      return schemaOnce();
    },
    ...(raw ? {} : { dto }),
    check: enforce
      ? (value) => {
          validate ??= (compiler ??= new Ajv2020({ strict: false, allErrors: false, validateFormats: false })).compile(
            schemaOnce(),
          );
          if (validate(value)) return undefined;
          return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
        }
      : () => undefined,
  };
}
