import { type INestApplication, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import express from 'express';
import request from 'supertest';
import { legacyInitialize, modernRequest, type McpTestRequest, rawPost } from '@kobana/nest-mcp/testing';
import { createToolsAppModule, VALIDATION } from '../fixtures/tools-app/tools-app.module.js';
import { expectRpcError, expectRpcResult, SEED_413_BODY } from '../support/wire.js';

/**
 * The module reads its endpoint's body itself whatever the host did with body parsers (issue 18):
 * here Nest's default `bodyParser` is left on (100 KB JSON limit, its own 400/413 bodies), or the
 * host adds `express.json()` itself, and the endpoint still answers as docs/ladder.md §2 requires.
 */
const HOSTS: [string, (app: INestApplication) => void][] = [
  ["Nest's default body parser", () => undefined],
  [
    'express.json() and express.text() added by the host',
    (app) => app.use(express.json({ limit: '10kb' }), express.text({ type: '*/*' })),
  ],
];

describe.each(HOSTS)('%s', (_name, configure) => {
  let app: INestApplication;
  let url: string;
  const auth = { Authorization: 'Bearer admin-token' };
  const post = (r: McpTestRequest) => request(url).post('/mcp').set(r.headers).set(auth);

  beforeAll(async () => {
    app = await NestFactory.create(createToolsAppModule(), { logger: false, abortOnError: false });
    configure(app);
    app.useGlobalPipes(new ValidationPipe(VALIDATION));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(() => app.close());

  it('broken JSON answers 400 -32700 with a null id', async () => {
    const r = modernRequest('server/discover');
    expectRpcError(
      await post(r).set('Content-Type', 'application/json').send('{"jsonrpc":"2.0","id":1,'),
      400,
      -32700,
      null,
    );
  });

  it('broken JSON without credentials answers 401: authentication still comes before the parse (rung 3)', async () => {
    const r = modernRequest('server/discover');
    const res = await request(url).post('/mcp').set(r.headers).send('{"jsonrpc":');
    expect(res.status).toBe(401);
  });

  it('a chunked body over 1 MiB is cut off with the seed 413 body', async () => {
    const res = await rawPost(
      `${url}/mcp`,
      { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', ...auth },
      async (write, end) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.length) {
          if (!(await write(chunk))) return;
        }
        end();
      },
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(SEED_413_BODY);
  });

  it('a declared Content-Length over 1 MiB gets the seed 413 body', async () => {
    const res = await rawPost(
      `${url}/mcp`,
      { 'Content-Type': 'application/json', 'Content-Length': String(1_048_577), ...auth },
      () => undefined,
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(SEED_413_BODY);
  });

  it("a 600 KB request is read whole: the host parser's smaller limit does not apply to the endpoint", async () => {
    const r = legacyInitialize();
    const json = JSON.stringify(r.body);
    const res = await post(r)
      .set('Content-Type', 'application/json')
      .send(json + ' '.repeat(600_000));
    expect(expectRpcResult(res, r.body.id!)).toHaveProperty('protocolVersion');
  });

  it("the host's other routes keep their parser", async () => {
    const res = await request(url).post('/echo').set(auth).send({ text: 'parsed by the host' });
    expect(res.status).toBe(201);
    expect(res.body.data.text).toBe('parsed by the host');
  });
});
