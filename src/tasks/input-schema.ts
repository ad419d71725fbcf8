import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { canonicalJson } from '@kobana/nest-mcp';
import { ApiError } from '../common/api-error.js';
import { compileTenantSchema, SchemaRefused } from './tenant-schema.js';

/** Compiled validators kept at once; the least recently used goes first. */
const CACHE_SIZE = 128;
/** Errors reported for one input (the rest are counted, not listed). */
const MAX_REPORTED_ERRORS = 20;

/**
 * A task's `input_schema` (JSON Schema) checks the input of each run. Each schema is compiled
 * alone (tenant-schema.ts: its own ajv, no shared registry, RE2 patterns, limits) once per task
 * and schema version, and a schema that cannot be used is refused when the task is saved.
 */
export class TaskInputValidator {
  private readonly compiled = new Map<string, ValidateFunction>();

  assertSchema(schema: Record<string, unknown> | null | undefined): void {
    if (schema === undefined || schema === null) return;
    try {
      compileTenantSchema(schema);
    } catch (error) {
      if (!(error instanceof SchemaRefused)) throw error;
      throw new ApiError(
        422,
        'validation_failed',
        'Validation failed',
        `input_schema is not usable: ${error.message}`,
        'input_schema',
      );
    }
  }

  assertInput(taskId: string, schema: Record<string, unknown> | null, input: unknown): void {
    if (!schema) return;
    const validate = this.validatorFor(taskId, schema);
    if (validate(input)) return;
    const errors = validate.errors ?? [];
    const items = errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({
      code: 'input_invalid',
      title: 'Input does not match the task input_schema',
      detail: `input${e.instancePath} ${e.message ?? 'is invalid'}`,
      param: `input${e.instancePath.replace(/\//g, '.')}`,
    }));
    if (errors.length > MAX_REPORTED_ERRORS) {
      items.push({
        code: 'input_invalid',
        title: 'Input does not match the task input_schema',
        detail: `and ${errors.length - MAX_REPORTED_ERRORS} more errors`,
        param: 'input',
      });
    }
    throw ApiError.many(422, items);
  }

  /** Keyed by task and a digest of its schema: an edited schema is a new version, never a stale hit. */
  private validatorFor(taskId: string, schema: Record<string, unknown>): ValidateFunction {
    const key = `${taskId}@${createHash('sha256').update(canonicalJson(schema)).digest('base64url')}`;
    let validate = this.compiled.get(key);
    if (validate) {
      this.compiled.delete(key);
      this.compiled.set(key, validate);
      return validate;
    }
    try {
      validate = compileTenantSchema(schema);
    } catch (error) {
      if (!(error instanceof SchemaRefused)) throw error;
      // Saved before today's rules: the task needs a new schema; the run is refused, not failed.
      throw new ApiError(
        422,
        'input_schema_unusable',
        'The task input_schema cannot be used',
        `${error.message}; update the task's input_schema`,
        'input_schema',
      );
    }
    this.compiled.set(key, validate);
    if (this.compiled.size > CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value!);
    return validate;
  }
}
