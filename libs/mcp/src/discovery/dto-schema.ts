import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
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
  /** Every class the app validates, converted and keyed by name: only for a `$ref` not resolved otherwise. */
  private all?: Record<string, Schema>;

  /** `closed`: the app forbids unknown fields (`forbidNonWhitelisted`), so the schema says so at every level. */
  build(dto: DtoClass, closed = false): Schema {
    const root: Schema = { type: 'object', properties: {}, ...(targetConstructorToSchema(dto, OPTIONS) as Schema) };
    const defs: Record<string, Schema> = {};
    this.collectRefs(root, defs, reachableClasses(dto));
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

  /** Adds to `defs` the definition of every `$ref` under `node`, and of theirs. */
  private collectRefs(node: unknown, defs: Record<string, Schema>, classes: ReadonlyMap<string, DtoClass>): void {
    if (Array.isArray(node)) {
      for (const item of node) this.collectRefs(item, defs, classes);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
        const name = value.slice(REF_PREFIX.length);
        const def = defs[name] ? undefined : this.definition(name, classes);
        if (def) {
          defs[name] = def;
          this.collectRefs(def, defs, classes);
        }
      } else {
        this.collectRefs(value, defs, classes);
      }
    }
  }

  /**
   * A `$ref` names a class (class-validator-jsonschema names a definition after its class). The
   * class this DTO reaches by that name is converted alone: a class of the app named like it is
   * not mixed in, and a start converts only what its tools use (bench/RESULTS.md, issue 32,
   * twenty-fourth pass). A name it does not reach, or a class with nothing to validate, is looked
   * up among every class the app validates, as before.
   */
  private definition(name: string, classes: ReadonlyMap<string, DtoClass>): Schema | undefined {
    const reached = classes.get(name);
    if (reached && validationMetadata(reached).length > 0) return targetConstructorToSchema(reached, OPTIONS) as Schema;
    this.all ??= validationMetadatasToSchemas(OPTIONS) as Record<string, Schema>;
    return this.all[name];
  }
}

/** class-validator's metadata for `target`'s properties, its ancestors' included. */
function validationMetadata(target: DtoClass) {
  return getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
}

/**
 * The classes `dto`'s validated properties hold, and theirs, by name (the first of a name wins:
 * two classes of one name in one DTO cannot be told apart by a `$ref`). Where
 * class-validator-jsonschema finds the class of a `$ref`: the type `@Type` gives a nested
 * property, else the property's design type.
 */
function reachableClasses(dto: DtoClass, found = new Map<string, DtoClass>()): Map<string, DtoClass> {
  for (const meta of validationMetadata(dto)) {
    if (typeof meta.target !== 'function') continue;
    const target = meta.target as DtoClass;
    const types: unknown[] = [Reflect.getMetadata('design:type', target.prototype as object, meta.propertyName)];
    if (meta.type === ValidationTypes.NESTED_VALIDATION)
      types.unshift(transformerMetadata.findTypeMetadata(target, meta.propertyName)?.typeFunction());
    for (const type of types) {
      if (typeof type !== 'function' || found.has(type.name)) continue;
      found.set(type.name, type as DtoClass);
      reachableClasses(type as DtoClass, found);
    }
  }
  return found;
}
