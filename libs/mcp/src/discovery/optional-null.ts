type Schema = Record<string, unknown>;

/**
 * `@IsOptional()` skips every validator for `undefined` and for `null`: the property is not
 * required, and `null` passes the server. The converter of its metadata marks the property with
 * this key; `allowNullWhereMarked` then lets the schema take `null` there too, so that it is never
 * stricter than the validator (docs/schemas.md). `ValidateIf` (also conditional) is not marked.
 */
export const OPTIONAL_NULL_MARK = 'x-mcp-optional-null';

export function optionalNullConverter(meta: { name?: string }): Schema {
  return meta.name === 'isOptional' ? { [OPTIONAL_NULL_MARK]: true } : {};
}

/** Rewrites, in place and at every depth, each marked property schema to also accept `null`. */
export function allowNullWhereMarked(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowNullWhereMarked(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Schema;
  for (const value of Object.values(record)) allowNullWhereMarked(value);
  const properties = record.properties as Record<string, Schema> | undefined;
  if (!properties || typeof properties !== 'object') return;
  for (const [name, property] of Object.entries(properties)) {
    if (property?.[OPTIONAL_NULL_MARK] !== true) continue;
    const { [OPTIONAL_NULL_MARK]: _mark, ...rest } = property;
    properties[name] = nullable(rest);
  }
}

function nullable(schema: Schema): Schema {
  const { type, enum: values } = schema;
  const composed = ['$ref', 'const', 'not', 'anyOf', 'oneOf', 'allOf'].some((key) => key in schema);
  if (typeof type === 'string' && !composed) {
    return { ...schema, type: [type, 'null'], ...(Array.isArray(values) ? { enum: [...values, null] } : {}) };
  }
  if (type === undefined && !composed && !Array.isArray(values)) return schema; // no type: null already passes
  const { description, title, ...constraint } = schema;
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    anyOf: [constraint, { type: 'null' }],
  };
}
