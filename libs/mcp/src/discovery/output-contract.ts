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

// One compiler for the app: schemas are compiled once, at bootstrap. `strict: false` because
// class-validator-jsonschema emits keywords Ajv's strict mode does not know (e.g. format names).
let compiler: Ajv2020 | undefined;

/** The contract of a DTO (same converter as input schemas, open to extra fields) or of a raw schema. */
export function outputContract(
  schemas: DtoSchemaBuilder,
  dto: Type | undefined,
  raw: Schema | undefined,
  enforce: boolean,
): OutputContract | undefined {
  const schema = raw ?? (dto ? schemas.build(dto) : undefined);
  if (!schema) return undefined;
  const source = raw || !dto ? {} : { dto };
  if (!enforce) return { schema, ...source, check: () => undefined };
  compiler ??= new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const validate: ValidateFunction = compiler.compile(schema);
  return {
    schema,
    ...source,
    check: (value) => {
      if (validate(value)) return undefined;
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
    },
  };
}
