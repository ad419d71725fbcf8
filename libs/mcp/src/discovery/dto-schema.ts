import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ValidationTypes } from 'class-validator';
import { transformerMetadata } from '../validation/transformer-storage.js';
import { allowNullWhereMarked, optionalNullConverter } from './optional-null.js';
import { VALIDATOR_SCHEMAS } from './validator-schemas.js';

type Schema = Record<string, unknown>;

const REF_PREFIX = '#/$defs/';
// VALIDATOR_SCHEMAS replaces the defaults that disagree with the validators (validator-schemas.ts).
const OPTIONS = {
  refPointerPrefix: REF_PREFIX,
  // Without it, arrays of nested DTOs degrade to `{"$ref":"#/definitions/Array"}`.
  classTransformerMetadataStorage: transformerMetadata,
  additionalConverters: {
    ...VALIDATOR_SCHEMAS,
    [ValidationTypes.CONDITIONAL_VALIDATION]: optionalNullConverter,
  } as never,
};

/**
 * Converts class-validator DTOs to self-contained JSON Schemas (nested DTOs under `$defs`).
 * Runs at bootstrap only: the registry keeps the results, nothing is converted per request.
 */
export class DtoSchemaBuilder {
  private all?: Record<string, Schema>;

  /** `closed`: the app forbids unknown fields (`forbidNonWhitelisted`), so the schema says so at every level. */
  build(dto: new (...args: never[]) => object, closed = false): Schema {
    const root: Schema = { type: 'object', properties: {}, ...(targetConstructorToSchema(dto, OPTIONS) as Schema) };
    const defs: Record<string, Schema> = {};
    this.collectRefs(root, defs);
    allowNullWhereMarked(root);
    for (const [name, def] of Object.entries(defs)) {
      defs[name] = structuredClone(def);
      allowNullWhereMarked(defs[name]);
    }
    const schema: Schema = { ...root, type: 'object' };
    if (closed) schema.additionalProperties = false;
    if (Object.keys(defs).length > 0) {
      schema.$defs = Object.fromEntries(
        Object.entries(defs).map(([name, def]) => [name, closed ? { ...def, additionalProperties: false } : def]),
      );
    }
    return schema;
  }

  private definitions(): Record<string, Schema> {
    this.all ??= validationMetadatasToSchemas(OPTIONS) as Record<string, Schema>;
    return this.all;
  }

  private collectRefs(node: unknown, defs: Record<string, Schema>): void {
    if (Array.isArray(node)) {
      for (const item of node) this.collectRefs(item, defs);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
        const name = value.slice(REF_PREFIX.length);
        const def = this.definitions()[name];
        if (def && !defs[name]) {
          defs[name] = def;
          this.collectRefs(def, defs);
        }
      } else {
        this.collectRefs(value, defs);
      }
    }
  }
}
