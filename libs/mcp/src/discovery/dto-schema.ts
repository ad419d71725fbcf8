import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { transformerMetadata } from '../validation/transformer-storage.js';
import { allowNullWhereMarked, optionalNullConverter } from './optional-null.js';
import { VALIDATOR_SCHEMAS } from './validator-schemas.js';

type Schema = Record<string, unknown>;
type DtoClass = new (...args: never[]) => object;

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
  /** `closed`: the app forbids unknown fields (`forbidNonWhitelisted`), so the schema says so at every level. */
  build(dto: DtoClass, closed = false): Schema {
    const root: Schema = { type: 'object', properties: {}, ...(targetConstructorToSchema(dto, OPTIONS) as Schema) };
    const defs: Record<string, Schema> = {};
    this.collectRefs(root, defs, nestedClasses(dto));
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

  /**
   * Adds to `defs` the definition of every `$ref` under `node`, and of theirs. A `$ref` names a
   * nested class (class-validator-jsonschema names its definition after the class): `classes`
   * are the ones this DTO reaches, so a class named like another of the app is not mixed with it.
   */
  private collectRefs(node: unknown, defs: Record<string, Schema>, classes: ReadonlyMap<string, DtoClass>): void {
    if (Array.isArray(node)) {
      for (const item of node) this.collectRefs(item, defs, classes);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
        const name = value.slice(REF_PREFIX.length);
        const nested = classes.get(name);
        if (nested && !defs[name]) {
          defs[name] = targetConstructorToSchema(nested, OPTIONS) as Schema;
          this.collectRefs(defs[name], defs, classes);
        }
      } else {
        this.collectRefs(value, defs, classes);
      }
    }
  }
}

/**
 * The classes `dto`'s `@ValidateNested` properties hold, and theirs, by name: the type `@Type`
 * gives, else the property's design type — where class-validator-jsonschema's converter finds
 * the class it writes a `$ref` to. Converting only these, rather than every class the app
 * validates (and grouping them by name), is what a start needs (bench/RESULTS.md, issue 32,
 * twenty-fourth pass).
 */
function nestedClasses(dto: DtoClass, found = new Map<string, DtoClass>()): Map<string, DtoClass> {
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    if (meta.type !== ValidationTypes.NESTED_VALIDATION || typeof meta.target !== 'function') continue;
    const target = meta.target as DtoClass;
    const type: unknown =
      transformerMetadata.findTypeMetadata(target, meta.propertyName)?.typeFunction() ??
      Reflect.getMetadata('design:type', target.prototype as object, meta.propertyName);
    if (typeof type !== 'function' || found.has(type.name)) continue;
    found.set(type.name, type as DtoClass);
    nestedClasses(type as DtoClass, found);
  }
  return found;
}
