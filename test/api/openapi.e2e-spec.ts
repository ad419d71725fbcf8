import { createRequire } from 'node:module';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { ALL_SCOPES } from '../../src/auth/scopes.js';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { KaduClient } from '../support/kadu-client.js';
import { inline, type Json, operationsOf, servedRoutes } from '../support/openapi.js';

// ajv ships CommonJS; its default export is the class.
const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020') as typeof import('ajv/dist/2020.js').default;
const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof import('ajv-formats').default;

/**
 * The OpenAPI description of /api/v1 as a client gets it: a valid 3.1 document, served without a
 * token, describing every route the app really serves, whose kadu_* twins take the same input.
 */
let kadu: KaduTestApp;
let doc: Json;
let tools: Json[];

beforeAll(async () => {
  kadu = await startKadu();
  doc = (await request(kadu.server).get('/api/v1/openapi.json').expect(200)).body;
  tools = await new KaduClient(kadu, { role: 'owner' }).listTools('2026');
});
afterAll(() => kadu?.close());

describe('GET /api/v1/openapi.json', () => {
  it('answers a valid OpenAPI 3.1 document without a token, every $ref resolving', async () => {
    const res = await request(kadu.server).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info).toMatchObject({ title: 'Kadu API', version: '1.0.0' });
    expect(res.body.servers).toEqual([{ url: `${kadu.config.publicBaseUrl}/api/v1` }]);
    const verdict = await new Validator().validate(res.body);
    expect(verdict.errors ?? []).toEqual([]);
    expect(verdict.valid).toBe(true);
    expect(() => inline(res.body, res.body)).not.toThrow();
  });

  it('describes exactly the routes the app serves under /api/v1', () => {
    const served = servedRoutes(kadu.app, '/api/v1').sort();
    const described = operationsOf(doc)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(served.length).toBeGreaterThanOrEqual(44);
    expect(described).toEqual(served);
  });

  it('names the bearer scheme with the API audience, and the scopes of each operation', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.components.securitySchemes.bearer.description).toContain(kadu.config.apiAudience);
    const scopes = (method: string, path: string) => doc.paths[path][method].security;
    expect(scopes('post', '/tasks/{id}/run')).toEqual([{ bearer: ['kadu.tasks.run'] }]);
    expect(scopes('get', '/me')).toEqual([{ bearer: [] }]);
    expect(scopes('put', '/uploads/{id}')).toEqual([]);
    expect(scopes('get', '/openapi.json')).toEqual([]);
  });

  it('documents the envelopes, the error body, X-Idempotency-Key and Request-Id on every operation', () => {
    const schemas = doc.components.schemas;
    expect(inline(schemas.ErrorBody, doc)).toMatchObject({
      required: ['status', 'errors'],
      properties: {
        status: { type: 'integer' },
        errors: {
          type: 'array',
          items: { required: ['code', 'title'], properties: { code: {}, title: {}, detail: {}, param: {} } },
        },
      },
    });
    expect(inline(schemas.ListEnvelope, doc)).toMatchObject({
      required: ['data', 'meta'],
      properties: {
        meta: { required: ['next_cursor', 'limit'], properties: { next_cursor: { type: ['string', 'null'] } } },
      },
    });
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      name: 'X-Idempotency-Key',
      in: 'header',
      required: false,
    });
    for (const { method, path, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(inline(operation.responses, doc) as Json)) {
        expect(response.headers?.['Request-Id'], `${method} ${path} ${status}`).toBeDefined();
        if (Number(status) >= 400)
          expect(response.content['application/json'].schema, `${method} ${path} ${status}`).toEqual(
            inline(schemas.ErrorBody, doc),
          );
      }
    }
    const create = doc.paths['/tasks'].post;
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    // An operation with a tool answers that tool's response DTO (issue 31); the others the generic envelopes.
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TaskEnvelope',
    });
    expect(doc.paths['/tasks'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TaskPage',
    });
    expect(inline(schemas.TaskPage, doc)).toMatchObject({
      required: ['data', 'meta'],
      properties: { data: { type: 'array', items: { required: expect.arrayContaining(['id', 'name', 'cost_cap']) } } },
    });
    expect(doc.paths['/tasks/{id}/run'].post.responses).toHaveProperty('202');
  });
});

describe('the description matches what the API does', () => {
  const ids = '0190c0de-0000-7000-8000-000000000000';
  const bearerOperations = () => operationsOf(doc).filter(({ operation }) => operation.security.length > 0);
  const call = (method: string, path: string, token?: string) => {
    const req = request(kadu.server)[method as 'get'](`/api/v1${path.replace(/\{[a-z_]+\}/g, ids)}`);
    return token ? req.set('Authorization', `Bearer ${token}`) : req;
  };

  it('each bearer operation answers 401 without a token, 403 without its scopes, and passes the guard with them', async () => {
    for (const { method, path, operation } of bearerOperations()) {
      const needed: string[] = operation.security[0].bearer;
      const missing = await call(method, path);
      expect(missing.status, `${method} ${path}`).toBe(401);
      expect(missing.body.errors[0].code).toBe('unauthorized');
      if (needed.length === 0) continue;
      const without = await kadu.token({
        role: 'owner',
        audience: 'api',
        scopes: ALL_SCOPES.filter((s) => !needed.includes(s)),
      });
      const refused = await call(method, path, without);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.errors[0]).toMatchObject({ code: 'insufficient_scope' });
      for (const scope of needed) expect(refused.body.errors[0].detail).toContain(scope);
      const just = await kadu.token({ role: 'owner', audience: 'api', scopes: needed });
      const passed = await call(method, path, just);
      expect([401, 403], `${method} ${path} with ${needed.join(' ')}`).not.toContain(passed.status);
      expect(Object.keys(operation.responses), `${method} ${path} answered ${passed.status}`).toContain(
        String(passed.status),
      );
    }
    expect(bearerOperations().length).toBeGreaterThanOrEqual(39);
  });

  it('real answers fit the documented envelopes and error body, with the documented headers', async () => {
    const client = new KaduClient(kadu, { role: 'admin' });
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const fits = (res: request.Response, method: string, path: string) => {
      const response = inline(doc.paths[path][method].responses[String(res.status)], doc);
      expect(response, `${method} ${path} ${res.status} is documented`).toBeDefined();
      for (const header of Object.keys(response.headers))
        if (header === 'Request-Id' || header.startsWith('RateLimit'))
          expect(res.headers[header.toLowerCase()], header).toBeDefined();
      const validate = ajv.compile(response.content['application/json'].schema);
      expect(validate(res.body) ? [] : validate.errors, `${method} ${path} ${res.status}`).toEqual([]);
    };
    const created = await client.rest(
      'post',
      '/api/v1/tasks',
      { name: 'Echo', kind: 'echo', cost_cap: 3 },
      { 'X-Idempotency-Key': 'openapi-1' },
    );
    expect(created.status).toBe(201);
    fits(created, 'post', '/tasks');
    const replayed = await client.rest(
      'post',
      '/api/v1/tasks',
      { name: 'Echo', kind: 'echo', cost_cap: 3 },
      { 'X-Idempotency-Key': 'openapi-1' },
    );
    expect(replayed.body).toEqual(created.body);
    const mismatch = await client.rest(
      'post',
      '/api/v1/tasks',
      { name: 'Other', kind: 'echo', cost_cap: 3 },
      { 'X-Idempotency-Key': 'openapi-1' },
    );
    expect(mismatch.status).toBe(422);
    fits(mismatch, 'post', '/tasks');
    const listed = await client.rest('get', '/api/v1/tasks?limit=1');
    expect(listed.status).toBe(200);
    fits(listed, 'get', '/tasks');
    const invalid = await client.rest('post', '/api/v1/tasks', { name: 7, kind: 'echo', cost_cap: 3, extra: true });
    expect(invalid.status).toBe(422);
    fits(invalid, 'post', '/tasks');
    const missing = await client.rest('get', `/api/v1/tasks/${ids}`);
    expect(missing.status).toBe(404);
    fits(missing, 'get', '/tasks/{id}');
    const nul = await client.rest('get', '/api/v1/tasks/a%00b');
    expect(nul.status).toBe(422);
    fits(nul, 'get', '/tasks/{id}');
    const queued = await client.rest('post', `/api/v1/tasks/${created.body.data.id}/run`, { input: { n: 1 } });
    expect(queued.status).toBe(202);
    fits(queued, 'post', '/tasks/{id}/run');
    // Every field of a run is optional, so the description says the body is too: none at all is a run.
    expect(doc.paths['/tasks/{id}/run'].post.requestBody.required).toBe(false);
    const bare = await client.rest('post', `/api/v1/tasks/${created.body.data.id}/run`);
    expect(bare.status).toBe(202);
    fits(bare, 'post', '/tasks/{id}/run');
  });
});

describe('each kadu_* tool and its REST operation', () => {
  const twinOf = (operation: Json) =>
    operation['x-mcp-tool'] as { name: string; path_arguments?: Record<string, string> } | undefined;

  it('every tool has exactly one operation, and every twin named is a tool', () => {
    const named = operationsOf(doc).flatMap(({ operation }) => (twinOf(operation) ? [twinOf(operation)!.name] : []));
    expect(tools.length).toBeGreaterThanOrEqual(37);
    expect([...named].sort()).toEqual(tools.map((t) => t.name).sort());
  });

  it('take the same input: path + query + body fields = the tool arguments, with the same schemas', () => {
    for (const { method, path, operation } of operationsOf(doc)) {
      const twin = twinOf(operation);
      if (!twin) continue;
      const where = `${method.toUpperCase()} ${path} / ${twin.name}`;
      const tool = tools.find((t) => t.name === twin.name)!;
      const input = inline(tool.inputSchema, tool.inputSchema);
      const { properties, required, body } = requestOf(operation, twin.path_arguments ?? {});
      expect(Object.keys(properties).sort(), where).toEqual(Object.keys(input.properties).sort());
      expect(required.sort(), where).toEqual([...(input.required ?? [])].sort());
      expect(input.additionalProperties, where).toBe(false);
      if (body) expect(body.additionalProperties, where).toBe(false);
      for (const [name, schema] of Object.entries(properties)) {
        const own = input.properties[name];
        if (schema.from === 'path') {
          // The route takes any string and answers 404 for a malformed id; the tool also caps its length.
          expect([own.type, schema.schema.type], `${where}: ${name}`).toEqual(['string', 'string']);
        } else if (schema.from === 'header') {
          // An empty header means "no key" on the route; the tool has no header and asks for ≥ 1 character.
          expect([own.type, own.maxLength], `${where}: ${name}`).toEqual([schema.schema.type, schema.schema.maxLength]);
        } else {
          expect(schema.schema, `${where}: ${name}`).toEqual(own);
        }
      }
    }
  });

  it("answer the same: each tool's outputSchema is its operation's success response schema", () => {
    let compared = 0;
    for (const { method, path, operation } of operationsOf(doc)) {
      const twin = twinOf(operation);
      if (!twin) continue;
      const where = `${method.toUpperCase()} ${path} / ${twin.name}`;
      const tool = tools.find((t) => t.name === twin.name)!;
      expect(tool.outputSchema, where).toBeDefined();
      const successes = Object.keys(operation.responses).filter((status) => Number(status) < 300);
      expect(successes.length, where).toBeGreaterThan(0);
      for (const status of successes) {
        const schema = inline(operation.responses[status].content['application/json'].schema, doc);
        // The tool's schema is self-contained (nested DTOs under $defs); inlined, the two are one schema.
        const { $defs, ...own } = inline(tool.outputSchema, tool.outputSchema);
        expect($defs, where).toBeDefined();
        expect(schema, `${where} ${status}`).toEqual(own);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(37);
  });

  function requestOf(operation: Json, pathArguments: Record<string, string>) {
    const properties: Record<string, { from: string; schema: Json }> = {};
    const required: string[] = [];
    for (const parameter of inline(operation.parameters ?? [], doc) as Json[]) {
      if (parameter.in === 'path') {
        const name = pathArguments[parameter.name] ?? parameter.name;
        properties[name] = { from: 'path', schema: parameter.schema };
        required.push(name);
      } else if (parameter.in === 'query') {
        properties[parameter.name] = { from: 'query', schema: parameter.schema };
        if (parameter.required) required.push(parameter.name);
      } else if (parameter.in === 'header' && parameter.name === 'X-Idempotency-Key') {
        properties.idempotency_key = { from: 'header', schema: parameter.schema };
      }
    }
    const body = operation.requestBody
      ? (inline(operation.requestBody.content['application/json'].schema, doc) as Json)
      : undefined;
    for (const [name, schema] of Object.entries((body?.properties ?? {}) as Json))
      properties[name] = { from: 'body', schema };
    required.push(...((body?.required ?? []) as string[]));
    return { properties, required, body };
  }
});
