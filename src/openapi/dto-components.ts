import type { Type } from '@nestjs/common';
import { DtoSchemaBuilder } from '@kobana/nest-mcp';

type Schema = Record<string, unknown>;

const DEFS_PREFIX = '#/$defs/';
const COMPONENTS_PREFIX = '#/components/schemas/';

/**
 * The request schemas of the API description, from the same class-validator DTOs and the same
 * converter (libs/mcp's DtoSchemaBuilder, class-validator-jsonschema) as the tools' input schemas.
 * A DTO becomes a component schema; the nested DTOs it holds (`$defs` in a tool schema) become
 * components of their own, so one `$ref` form serves the whole document.
 */
export class DtoComponents {
  readonly schemas: Record<string, Schema> = {};
  private readonly builder = new DtoSchemaBuilder();

  /** `closed`: the API refuses unknown fields (forbidNonWhitelisted), so every object says so. */
  constructor(private readonly closed: boolean) {}

  /**
   * A `$ref` to the DTO's component schema, adding it (and what it nests) on first use. Response
   * DTOs pass `closed: false`: an answer may grow fields, as a tool's outputSchema says too.
   */
  ref(dto: Type, closed = this.closed): Schema {
    const { $defs, ...root } = this.builder.build(dto, closed) as Schema & { $defs?: Record<string, Schema> };
    this.add(dto.name, root);
    for (const [name, def] of Object.entries($defs ?? {})) this.add(name, def);
    return { $ref: `${COMPONENTS_PREFIX}${dto.name}` };
  }

  /** A query DTO as one query parameter per field; the field's schema is the parameter's. */
  queryParameters(dto: Type): Schema[] {
    const schema = this.builder.build(dto, this.closed) as {
      properties?: Record<string, Schema>;
      required?: string[];
      $defs?: unknown;
    };
    if (schema.$defs)
      throw new Error(`${dto.name}: a query DTO with nested DTOs cannot be described as query parameters`);
    return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name,
      in: 'query',
      required: (schema.required ?? []).includes(name),
      ...(typeof property.description === 'string' ? { description: property.description } : {}),
      schema: property,
    }));
  }

  private add(name: string, schema: Schema): void {
    const rewritten = rewriteRefs(schema) as Schema;
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(rewritten)) {
      throw new Error(`Two different DTOs are named ${name}: the API description needs unique DTO class names`);
    }
    this.schemas[name] = rewritten;
  }
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)
        ? [key, `${COMPONENTS_PREFIX}${value.slice(DEFS_PREFIX.length)}`]
        : [key, rewriteRefs(value)],
    ),
  );
}
