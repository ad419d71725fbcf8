import { type IncomingHttpHeaders, request as httpRequest, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { type INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpModule, McpTool } from '@kobana/nest-mcp';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { expectRpcResult } from '../support/wire.js';

/**
 * Issue 22: shared list pages go out gzip-coded to a client that accepts gzip, from a prefix
 * compressed once (libs/mcp/src/protocol/gzip-splice.ts); anything else stays identity.
 */
const TOOLS = 201;
const PAGE_SIZE = 100;

/** TOOLS tools on one provider: two full pages (~20 KB each) and a last page of one tool. */
function manyTools(): new () => object {
  @Injectable()
  class ManyTools {}
  const proto = ManyTools.prototype as unknown as Record<string, unknown>;
  for (let i = 0; i < TOOLS; i++) {
    const name = `tool_${String(i).padStart(4, '0')}`;
    proto[name] = () => ({ data: { tool: name } });
    McpTool({ name, description: `Generated tool nº${i} — "quoted".`, annotations: { readOnlyHint: true } })(
      proto,
      name,
      Object.getOwnPropertyDescriptor(proto, name)!,
    );
  }
  return ManyTools;
}

let app: INestApplication;
let server: Server;
let endpoint: URL;
/**
 * The Content-Encoding of every 200 answer, as the server sent it (the SDK clients decode theirs);
 * a client's notifications (202, no body) are left out.
 */
const sentEncodings: (string | undefined)[] = [];

beforeAll(async () => {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'gzip-test', version: '1.0.0' },
        pageSize: PAGE_SIZE,
        rateLimits: { general: false, writes: false, failedAuth: false },
      }),
    ],
    providers: [manyTools()],
  })
  class GzipModule {}
  app = await NestFactory.create(GzipModule, { bodyParser: false, logger: false, abortOnError: false });
  app.use((req: Request, res: Response, next: NextFunction) => {
    // An app middleware that varies its answers on something of its own (the Vary test below).
    const vary = req.headers['x-app-vary'];
    if (typeof vary === 'string') res.setHeader('Vary', vary);
    res.on('finish', () => {
      const encoding = res.getHeader('Content-Encoding');
      if (res.statusCode === 200) sentEncodings.push(typeof encoding === 'string' ? encoding : undefined);
    });
    next();
  });
  await app.listen(0, '127.0.0.1');
  server = app.getHttpServer() as Server;
  endpoint = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
});
afterAll(() => app.close());

type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;

/** The answer's bytes exactly as they left the server, with no client decoding them. */
function rawPost(r: McpTestRequest, acceptEncoding: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      endpoint,
      { method: 'POST', headers: { ...r.headers, 'Accept-Encoding': acceptEncoding } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(r.body));
  });
}

const varies = (headers: Record<string, unknown>): boolean =>
  String(headers.vary ?? '')
    .split(',')
    .some((name) => name.trim().toLowerCase() === 'accept-encoding');

describe.each<[string, Build]>([
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
])('tools/list with Accept-Encoding, %s era', (era, build) => {
  const list = (acceptEncoding: string | undefined, cursor?: string, id: string | number = 'l') => {
    const r = build('tools/list', cursor === undefined ? {} : { cursor }, { id });
    const call = request(server).post('/mcp').set(r.headers);
    // superagent sends `gzip, deflate` unless told otherwise; '' stands for no header at all.
    if (acceptEncoding !== undefined) call.set('Accept-Encoding', acceptEncoding);
    else call.unset('Accept-Encoding');
    return call.send(r.body);
  };

  beforeAll(async () => {
    if (era !== '2025') return;
    // A 2025 client initializes first, as the official SDK does.
    const r = legacyRequest('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'gzip-test', version: '1' },
    });
    expectRpcResult(await request(server).post('/mcp').set(r.headers).send(r.body), r.body.id!);
  });

  it('answers a large page gzip-coded, varying on Accept-Encoding, with the same JSON as identity', async () => {
    const plain = await list('identity');
    const zipped = await list('gzip, deflate');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const res of [plain, zipped]) {
      expect(varies(res.headers)).toBe(true);
      expect(res.headers['mcp-protocol-version'] ?? null).toBe(plain.headers['mcp-protocol-version'] ?? null);
    }
    const result = expectRpcResult(zipped, 'l');
    expect(zipped.body).toEqual(plain.body);
    expect(result.tools).toHaveLength(PAGE_SIZE);
    expect(typeof result.nextCursor).toBe('string');
    if (era === '2025') expect(result).not.toHaveProperty('_meta');
    else expect(result).toMatchObject({ ttlMs: 0, _meta: expect.any(Object) });
  });

  it('sends real gzip bytes with their own Content-Length, for any id', async () => {
    for (const id of [7, 'ünï-"quoted"\\id', 2 ** 53 - 1, 'x'.repeat(5000)]) {
      const r = build('tools/list', {}, { id });
      const plain = await rawPost(r, 'identity');
      const zipped = await rawPost(r, 'GZIP;q=0.5');
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect([...zipped.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
      expect(zipped.headers['content-type']).toBe(plain.headers['content-type']);
      expect(zipped.headers['cache-control']).toBe('no-store');
      const decoded = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as Record<string, unknown>;
      expect(decoded).toEqual(JSON.parse(plain.body.toString('utf8')));
      expect(decoded.id).toEqual(id);
    }
  });

  it.each([
    ['gzip;q=0', 'gzip;q=0'],
    ['identity', 'identity'],
    ['br only', 'br'],
    ['*;q=0', '*;q=0'],
    ['a malformed header', 'gzip;q=2'],
    ['no header', undefined],
  ])('answers identity to %s', async (_, acceptEncoding) => {
    const res = await list(acceptEncoding);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(varies(res.headers)).toBe(true);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(expectRpcResult(res, 'l').tools).toHaveLength(PAGE_SIZE);
  });

  it('compresses page 2 (reached by cursor) and leaves the small last page identity', async () => {
    const first = expectRpcResult(await list('gzip'), 'l');
    const second = await list('gzip', first.nextCursor as string);
    expect(second.headers['content-encoding']).toBe('gzip');
    const page2 = expectRpcResult(second, 'l');
    expect((page2.tools as { name: string }[]).map((t) => t.name)).toEqual(
      Array.from({ length: PAGE_SIZE }, (_, i) => `tool_${String(PAGE_SIZE + i).padStart(4, '0')}`),
    );
    expect(second.body).toEqual((await list('identity', first.nextCursor as string)).body);
    const third = await list('gzip', page2.nextCursor as string);
    expect(third.headers['content-encoding']).toBeUndefined();
    expect(varies(third.headers)).toBe(true);
    expect(Number(third.headers['content-length'])).toBe(Buffer.byteLength(third.text));
    const page3 = expectRpcResult(third, 'l');
    expect(page3.tools).toEqual([expect.objectContaining({ name: 'tool_0200' })]);
    expect(page3).not.toHaveProperty('nextCursor');
  });

  it('leaves tools/call answers and errors identity', async () => {
    const r = build('tools/call', { name: 'tool_0001', arguments: {} }, { id: 'c' });
    const call = await request(server).post('/mcp').set(r.headers).set('Accept-Encoding', 'gzip').send(r.body);
    expect(call.headers['content-encoding']).toBeUndefined();
    expect(expectRpcResult(call, 'c').isError).toBeFalsy();
    const bad = await list('gzip', 'not-a-cursor');
    expect(bad.headers['content-encoding']).toBeUndefined();
    expect(bad.body.error.code).toBe(-32602);
  });
});

describe("a Vary the app's own middleware set before the endpoint", () => {
  it.each([
    ['Origin', 'Origin, Accept-Encoding'],
    ['Origin, accept-encoding', 'Origin, accept-encoding'],
    ['*', '*'],
  ])('%s is kept, with Accept-Encoding named once: %s', async (appVary, expected) => {
    const r = modernRequest('tools/list', {}, { id: 'v' });
    const res = await request(server)
      .post('/mcp')
      .set(r.headers)
      .set('X-App-Vary', appVary)
      .set('Accept-Encoding', 'gzip')
      .send(r.body);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe(expected);
    expect(expectRpcResult(res, 'v').tools).toHaveLength(PAGE_SIZE);
  });
});

describe('the official TypeScript clients list a large catalogue through the gzip path', () => {
  async function listAll(client: {
    listTools(params?: { cursor?: string }): Promise<{ tools: { name: string }[]; nextCursor?: string }>;
  }): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names;
  }
  const ALL = Array.from({ length: TOOLS }, (_, i) => `tool_${String(i).padStart(4, '0')}`);

  it('@modelcontextprotocol/sdk (2025, after initialize)', async () => {
    const client = new ClientV1({ name: 'v1-test', version: '1.0.0' });
    await client.connect(new TransportV1(endpoint));
    try {
      sentEncodings.length = 0;
      expect(await listAll(client)).toEqual(ALL);
      // Two full pages gzip-coded, the one-tool page identity.
      expect(sentEncodings).toEqual(['gzip', 'gzip', undefined]);
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/client (2026-07-28)', async () => {
    const client = new ClientV2({ name: 'v2-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      sentEncodings.length = 0;
      expect(await listAll(client)).toEqual(ALL);
      expect(sentEncodings).toEqual(['gzip', 'gzip', undefined]);
    } finally {
      await client.close();
    }
  });
});
