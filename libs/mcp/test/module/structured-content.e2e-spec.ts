import request from 'supertest';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { ResultsService } from '../fixtures/tools-app/results.service.js';
import { expectRpcResult } from '../support/wire.js';

/** Issue 31: tools that declare what they return list an outputSchema and answer structuredContent. */
let t: ToolsApp;

beforeAll(async () => {
  t = await startToolsApp({ providers: [ResultsService] });
});
afterAll(() => t.app.close());

type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;
const ERAS: [string, Build][] = [
  ['2026-07-28', modernRequest],
  ['2025-06-18', legacyRequest],
];

const mcp = (r: McpTestRequest) =>
  request(t.server).post('/mcp').set(r.headers).set('Authorization', 'Bearer admin-token').send(r.body);

const FORECAST_SCHEMA = {
  type: 'object',
  properties: { data: { $ref: '#/$defs/ForecastDto' } },
  required: ['data'],
  $defs: {
    ForecastDto: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        celsius: { type: 'integer', description: 'Degrees Celsius' },
        sky: { enum: ['sun', 'rain', 'snow'], type: 'string' },
        warning: { type: ['string', 'null'] },
      },
      required: ['city', 'celsius', 'sky'],
    },
  },
};

async function listed(build: Build): Promise<Record<string, Record<string, unknown>>> {
  const byName: Record<string, Record<string, unknown>> = {};
  let cursor: string | undefined;
  do {
    const result = expectRpcResult(await mcp(build('tools/list', cursor ? { cursor } : {}, { id: 'l' })), 'l');
    for (const tool of result.tools as Record<string, unknown>[]) byName[tool.name as string] = tool;
    cursor = result.nextCursor as string | undefined;
  } while (cursor);
  return byName;
}

describe.each(ERAS)('%s', (_era, build) => {
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    expectRpcResult(await mcp(build('tools/call', { name, arguments: args }, { id: 'c' })), 'c');

  it('lists the outputSchema made from the declared DTO, or from @ApiOkResponse; others have none', async () => {
    const tools = await listed(build);
    expect(tools.forecast!.outputSchema).toEqual(FORECAST_SCHEMA);
    expect(tools.cities!.outputSchema).toEqual({
      type: 'object',
      properties: { cities: { type: 'array', items: { type: 'string' } }, complete: { type: 'boolean' } },
      required: ['cities', 'complete'],
    });
    expect(tools.echo).not.toHaveProperty('outputSchema');
  });

  it('answers structuredContent: the same JSON as the text block, serialized once', async () => {
    const res = await mcp(build('tools/call', { name: 'forecast', arguments: { city: 'Recife' } }, { id: 'c' }));
    const result = expectRpcResult(res, 'c');
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    expect(result.structuredContent).toEqual({ data: { city: 'Recife', celsius: 21, sky: 'sun', warning: 'heat' } });
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    // The raw body holds the text's exact bytes as the structuredContent value.
    expect(res.text).toContain(`"structuredContent":${text}`);
    expect(result.isError).toBeUndefined();
    expect((await call('cities')).structuredContent).toEqual({ cities: ['Recife', 'Lisboa'], complete: true });
  });

  it('a tool without a declared output answers text only', async () => {
    const result = await call('echo', { text: 'hi' });
    expect(result).not.toHaveProperty('structuredContent');
  });

  it('a result that contradicts its schema is never sent: a masked internal error instead', async () => {
    const res = await mcp(build('tools/call', { name: 'forecast_broken', arguments: {} }, { id: 'c' }));
    const result = expectRpcResult(res, 'c');
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty('structuredContent');
    expect(res.text).not.toContain('warm');
    const text = (result.content as { text: string }[])[0]!.text;
    expect(JSON.parse(text).error).toMatchObject({ code: 'internal_error', request_id: expect.any(String) });
  });

  it("a method's own McpToolResult is held to the same schema", async () => {
    const fine = await call('cities_rich');
    expect(fine.structuredContent).toEqual({ cities: ['Recife'], complete: false });
    expect(fine.content).toHaveLength(2);
    const wrong = await call('cities_rich', { wrong: true });
    expect(wrong.isError).toBe(true);
    expect(wrong).not.toHaveProperty('structuredContent');
    // Text only from a tool that lists an outputSchema is a broken promise too.
    const bare = await call('cities_rich', { bare: true });
    expect(bare.isError).toBe(true);
    expect(JSON.parse((bare.content as { text: string }[])[0]!.text).error.code).toBe('internal_error');
  });
});

describe('2025-03-26 (no structuredContent in that revision)', () => {
  it('answers the text block only, even for a tool with an output schema', async () => {
    const r = legacyRequest(
      'tools/call',
      { name: 'forecast', arguments: { city: 'Lisboa' } },
      { id: 'c', protocolVersion: null },
    );
    const result = expectRpcResult(await mcp(r), 'c');
    expect(result).not.toHaveProperty('structuredContent');
    expect(JSON.parse((result.content as { text: string }[])[0]!.text).data.city).toBe('Lisboa');
    const rich = expectRpcResult(
      await mcp(
        legacyRequest('tools/call', { name: 'cities_rich', arguments: {} }, { id: 'c', protocolVersion: '2025-03-26' }),
      ),
      'c',
    );
    expect(rich).not.toHaveProperty('structuredContent');
    expect(rich.content).toHaveLength(2);
  });
});
