import type { INestApplication, Type } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { McpToolRegistry } from '@kobana/nest-mcp';
import {
  commonErrors,
  envelopeContent,
  errorBodyContent,
  errorHeaders,
  HEADERS,
  idempotencyParameter,
  PARAMETERS,
  requestIdHeader,
  SCHEMAS,
  SCHEME,
  securitySchemes,
} from './api-conventions.js';
import { DtoComponents } from './dto-components.js';
import { type RouteFacts, routeFactsOf } from './route-metadata.js';
import { TOOL_TWIN_EXTENSION, type ToolTwinExtension } from './tool-twin.decorator.js';

type Schema = Record<string, unknown>;
/** The document as served: swagger's typing of components is narrower than what 3.1 allows. */
export type ApiDocument = Omit<OpenAPIObject, 'paths' | 'components'> & {
  paths: Record<string, Schema>;
  components: Record<string, Record<string, Schema>>;
};
type Operation = Schema & { operationId: string; parameters?: Schema[]; responses: Record<string, Schema> };

export const API_PREFIX = '/api/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface ApiDescriptionInput {
  title: string;
  version: string;
  publicBaseUrl: string;
  apiAudience: string;
  issuer: string;
  /** The API refuses unknown fields (forbidNonWhitelisted): request schemas are closed. */
  closed: boolean;
  tools: McpToolRegistry;
  controllers: readonly Type[];
}

const TAGS: [string, string][] = [
  ['account', "Who you are, and your organisation's plan and usage"],
  ['tasks', 'What your organisation can run; `run` starts an execution'],
  ['executions', 'Runs of a task, done in the background'],
  ['files', 'Metadata and presigned URLs; the bytes go to the URLs, never through the API'],
  ['webhooks', 'Where execution events are delivered, signed'],
  ['webhook_deliveries', 'Each delivery, its attempts, and replays'],
  ['secrets', 'Metadata only: values are typed on a single-use page'],
  ['members', 'Who belongs to the organisation, and their roles'],
  ['documentation', 'This description and its page'],
];
const TAG_OF: Record<string, string> = {
  me: 'account',
  usage: 'account',
  uploads: 'files',
  downloads: 'files',
  'openapi.json': 'documentation',
  docs: 'documentation',
};

/**
 * The OpenAPI 3.1 description of /api/v1. @nestjs/swagger scans the app's real routes (paths,
 * methods, status codes, path parameters, `@ApiResponse`/`@ApiExtension` declarations); the
 * request schemas then come from the routes' class-validator DTOs through the converter the
 * tools use, and the security, envelopes and errors from Nest's metadata on each route.
 */
export function buildOpenApiDocument(app: INestApplication, input: ApiDescriptionInput): ApiDocument {
  const controllers = new Map<string, Type>();
  for (const controller of input.controllers) {
    if (controllers.has(controller.name))
      throw new Error(`Two controllers are named ${controller.name}: the API description needs unique names`);
    controllers.set(controller.name, controller);
  }
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(input.title)
    .setVersion(input.version)
    .setDescription(DESCRIPTION)
    .addServer(`${input.publicBaseUrl}${API_PREFIX}`);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const scanned = SwaggerModule.createDocument(app, builder.build(), {
    autoTagControllers: false,
    operationIdFactory: (controller, method) => `${controller}.${method}`,
  });

  const dtos = new DtoComponents(input.closed);
  const paths: Record<string, Schema> = {};
  for (const [path, item] of Object.entries(scanned.paths)) {
    if (!path.startsWith(`${API_PREFIX}/`)) continue;
    const relative = path.slice(API_PREFIX.length);
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      const [controllerName, methodName] = operation.operationId.split('.') as [string, string];
      const controller = controllers.get(controllerName);
      if (!controller) throw new Error(`No controller ${controllerName} for ${method.toUpperCase()} ${path}`);
      describeOperation(operation, relative, routeFactsOf(controller, methodName), dtos, input.tools);
      operation.operationId = `${controllerName}_${methodName}`;
    }
    paths[relative] = item as Schema;
  }

  return {
    ...scanned,
    paths,
    components: {
      securitySchemes: securitySchemes(input.apiAudience, input.issuer),
      schemas: { ...SCHEMAS, ...dtos.schemas },
      parameters: PARAMETERS,
      headers: HEADERS,
    },
  };
}

const DESCRIPTION = [
  'The Kadu REST API. The same operations are MCP tools on `/mcp` (each operation that has one names it in `x-mcp-tool`); both doors run the same service methods with the same validation.',
  '',
  '- One resource answers `{"data": …}`; a list `{"data": […], "meta": {"next_cursor": …, "limit": N}}` — newest first, `limit` 1–100 (default 20), pass `meta.next_cursor` back as `cursor`.',
  '- Errors answer `{"status": 422, "errors": [{"code", "title", "detail", "param"}]}`.',
  '- Writes accept `X-Idempotency-Key`; every response carries `Request-Id`.',
  "- Another organisation's ids answer 404, like missing ones. Bodies are JSON, at most 1 MiB; unknown fields are refused (422).",
].join('\n');

function describeOperation(
  operation: Operation,
  path: string,
  route: RouteFacts,
  dtos: DtoComponents,
  tools: McpToolRegistry,
): void {
  const twin = operation[TOOL_TWIN_EXTENSION] as ToolTwinExtension | undefined;
  const tool = twin ? tools.get(twin.name) : undefined;
  if (twin && !tool) throw new Error(`${operation.operationId} names the tool ${twin.name}, which does not exist`);
  const segment = path.split('/')[1] ?? '';
  operation.tags = [TAG_OF[segment] ?? segment];
  if (tool) {
    operation.summary ??= (tool.listing.title as string | undefined) ?? tool.name;
    operation.description ??= textOrUndefined(tool.listing.description);
  }
  const needs = route.permission ? permissionText(route.permission.scopes, route.permission.roles) : undefined;
  if (needs) operation.description = [operation.description, needs].filter(Boolean).join('\n\n');

  let idempotent = false;
  const parameters: Schema[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'header' && textOrUndefined(parameter.name)?.toLowerCase() === 'x-idempotency-key') {
      idempotent = true;
      parameters.push(idempotencyParameter());
    } else if (parameter.in === 'path' && parameter.name === 'id' && parameter.description === undefined) {
      parameters.push({ ...parameter, description: 'The id (a malformed one is simply not found)' });
    } else {
      parameters.push(parameter);
    }
  }
  if (route.query) parameters.push(...dtos.queryParameters(route.query));
  operation.parameters = parameters;
  if (route.body) {
    const schema = dtos.ref(route.body);
    const required = ((dtos.schemas[route.body.name]?.required as string[] | undefined) ?? []).length > 0;
    operation.requestBody = { required, content: { 'application/json': { schema } } };
  }
  operation.security = route.bearer ? [{ [SCHEME]: [...(route.permission?.scopes ?? [])] }] : [];

  const kind = {
    bearer: route.bearer,
    pathId: route.bearer && /\{id\}/.test(path),
    body: route.body !== undefined,
    // Path parameters pass the same pipe: a NUL or a lone surrogate in one is a 422 too.
    input: route.query !== undefined || /\{[^}]+\}/.test(path),
    lists: route.lists,
    idempotent,
  };
  // The tool's response DTO is the operation's success body: the one class both doors answer with.
  const answer = tool?.output?.dto ? { 'application/json': { schema: dtos.ref(tool.output.dto, false) } } : undefined;
  describeResponses(operation, route, commonErrors(kind), answer);
}

function describeResponses(
  operation: Operation,
  route: RouteFacts,
  errors: Map<number, string[]>,
  answer: Schema | undefined,
): void {
  const responses: Record<string, Schema> = {};
  // Declaring an error with @ApiResponse makes the scanner leave out the success answer: it is Nest's own status.
  const successes = Object.keys(operation.responses).filter((status) => Number(status) < 400);
  for (const status of successes.length > 0 ? successes : [String(route.status)]) {
    const code = Number(status);
    const declared = operation.responses[status] ?? {};
    const headers = {
      ...requestIdHeader(),
      ...(route.bearer ? rateLimitHeaders() : {}),
      ...((declared.headers as Schema | undefined) ?? {}),
    };
    const content = declared.content ?? (code === 204 ? undefined : (answer ?? envelopeContent(route.lists)));
    responses[status] = {
      ...declared,
      description: textOrUndefined(declared.description) || REASONS[code] || 'Success',
      headers,
      ...(content ? { content } : {}),
    };
  }
  const statuses = new Set([
    ...errors.keys(),
    ...Object.keys(operation.responses)
      .map(Number)
      .filter((code) => code >= 400),
  ]);
  for (const code of [...statuses].sort((a, b) => a - b)) {
    const declared = operation.responses[String(code)];
    const causes = [...(errors.get(code) ?? []), ...(declared?.description ? [declared.description as string] : [])];
    responses[String(code)] = {
      description: causes.join('; '),
      headers: errorHeaders(code),
      content: errorBodyContent(),
    };
  }
  operation.responses = responses;
}

const rateLimitHeaders = (): Schema =>
  Object.fromEntries(
    ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((name) => [
      name,
      { $ref: `#/components/headers/${name}` },
    ]),
  );

function permissionText(scopes: readonly string[], roles: readonly string[]): string {
  const scope =
    scopes.length > 0
      ? `the scope${scopes.length > 1 ? 's' : ''} ${scopes.map((s) => `\`${s}\``).join(', ')} and `
      : '';
  return `Needs ${scope}the role ${roles.join(' or ')} or above.`;
}

const REASONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

/** A string field of a schema or listing, else undefined (nothing here coerces a value, issue 34). */
function textOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
