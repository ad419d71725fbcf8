import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { ApiError } from '../common/api-error.js';

// ajv ships CommonJS; its default export is the class.
const require = createRequire(import.meta.url);
const Ajv = require('ajv') as typeof import('ajv').default;

/**
 * A task's `input_schema` (JSON Schema) checks the input of each run. Schemas are compiled once per
 * version of the task, and a schema that is itself invalid is refused when the task is saved.
 */
export class TaskInputValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  assertSchema(schema: Record<string, unknown> | undefined): void {
    if (schema === undefined || schema === null) return;
    try {
      this.ajv.compile(schema);
    } catch (error) {
      throw new ApiError(422, 'validation_failed', 'Validation failed', `input_schema is not a valid JSON Schema: ${(error as Error).message}`, 'input_schema');
    }
  }

  assertInput(taskId: string, version: string, schema: Record<string, unknown> | null, input: unknown): void {
    if (!schema) return;
    const key = `${taskId}@${version}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      if (this.compiled.size > 500) this.compiled.clear();
      this.compiled.set(key, validate);
    }
    if (validate(input)) return;
    throw ApiError.many(
      422,
      (validate.errors ?? []).map((e) => ({
        code: 'input_invalid',
        title: 'Input does not match the task input_schema',
        detail: `input${e.instancePath} ${e.message ?? 'is invalid'}`,
        param: `input${e.instancePath.replace(/\//g, '.')}`,
      })),
    );
  }
}
