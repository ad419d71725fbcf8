import { applyDecorators, type Type } from '@nestjs/common';
import { Type as TransformType } from 'class-transformer';
import { IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from '@kobana/nest-mcp';

/**
 * Property decorators of the response DTOs (what the API answers and the tools return): written as
 * class-validator metadata because that is what the one DTO → JSON Schema converter reads
 * (libs/mcp DtoSchemaBuilder), so a tool's outputSchema and its operation's response schema come
 * from the same class (docs/kadu.md §Conventions of /api/v1). Nothing validates a response with
 * them at run time; libs/mcp checks each structuredContent against the schema they make.
 */
type Schema = Record<string, unknown>;
/** Extra keywords of one field (description, bounds): one JSONSchema per property, the last one wins. */
export type FieldSchema = Schema & { description?: string };

// class-validator-jsonschema keeps one JSONSchema per property; its function form rewrites the
// converted schema (its parameter types are narrower than a schema).
const shaped = (change: (schema: Schema) => Schema) => JSONSchema(change as never);
const withExtra = (extra: FieldSchema = {}, nullable = false) =>
  shaped((schema) => ({ ...schema, ...(nullable ? { type: [schema.type, 'null'] } : {}), ...extra }));
const text = (description?: string): FieldSchema => (description ? { description } : {});

export const Text = (description?: string) => applyDecorators(IsString(), withExtra(text(description)));
export const NullableText = (description?: string) => applyDecorators(IsString(), withExtra(text(description), true));
export const Texts = (description?: string) =>
  applyDecorators(IsArray(), IsString({ each: true }), withExtra(text(description)));
export const Time = (description?: string) =>
  applyDecorators(IsString(), withExtra({ format: 'date-time', ...text(description) }));
export const NullableTime = (description?: string) =>
  applyDecorators(IsString(), withExtra({ format: 'date-time', ...text(description) }, true));
export const Int = (extra?: FieldSchema) => applyDecorators(IsInt(), withExtra(extra));
export const NullableInt = (extra?: FieldSchema) => applyDecorators(IsInt(), withExtra(extra, true));
export const Bool = (description?: string) => applyDecorators(IsBoolean(), withExtra(text(description)));
export const OneOf = (values: readonly string[], description?: string) =>
  applyDecorators(IsIn([...values]), withExtra({ type: 'string', ...text(description) }));
/** Any JSON value the resource holds as given; IsDefined makes it required (the key is always there), null included. */
export const AnyJson = (description: string) =>
  applyDecorators(
    IsDefined(),
    shaped(() => ({ description })),
  );
export const NullableObject = (description: string) => applyDecorators(IsObject(), withExtra({ description }, true));
export const Nested = (dto: () => Type) => applyDecorators(ValidateNested(), TransformType(dto));
export const NullableNested = (dto: () => Type) =>
  applyDecorators(
    ValidateNested(),
    TransformType(dto),
    shaped((schema) => ({ anyOf: [schema, { type: 'null' }] })),
  );
export const ListOf = (dto: () => Type) =>
  applyDecorators(IsArray(), ValidateNested({ each: true }), TransformType(dto));

/** `{ data: <dto> }`, the API's envelope of one resource, as a named DTO class. */
export function EnvelopeOf(dto: Type, name: string): Type {
  const Envelope = class {};
  Object.defineProperty(Envelope, 'name', { value: name });
  Reflect.defineMetadata('design:type', dto, Envelope.prototype, 'data');
  Nested(() => dto)(Envelope.prototype, 'data');
  return Envelope;
}

export class PageMetaDto {
  @NullableText('Pass it as `cursor` (with the same filters) for the next page; null on the last page')
  next_cursor: string | null;

  @Int({ minimum: 1, maximum: 100 })
  limit: number;
}

/** `{ data: [<dto>…], meta }`, the API's envelope of a page. */
export function PageOf(dto: Type, name: string): Type {
  const Page = class {};
  Object.defineProperty(Page, 'name', { value: name });
  Reflect.defineMetadata('design:type', Array, Page.prototype, 'data');
  ListOf(() => dto)(Page.prototype, 'data');
  Reflect.defineMetadata('design:type', PageMetaDto, Page.prototype, 'meta');
  Nested(() => PageMetaDto)(Page.prototype, 'meta');
  return Page;
}
