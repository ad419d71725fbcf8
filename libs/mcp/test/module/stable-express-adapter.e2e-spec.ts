import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, Controller, Get, type INestApplication, Module, Post, Query, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Express, Request, Response } from 'express';
import request from 'supertest';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';

/** Resolves once a request has reached the hanging handler (no guessed sleep). */
const hanging = { arrived: (): void => undefined };

@Controller('probe')
class ProbeController {
  @Get()
  get(@Req() req: Request, @Query('q') q: string) {
    return { q, ip: req.ip, host: req.get('host'), path: req.path, protocol: req.protocol };
  }

  @Post()
  post(@Body() body: unknown, @Res() res: Response): void {
    res.status(201).set('X-Probe', 'yes').json({ body });
  }

  @Get('hang')
  hang(): Promise<never> {
    hanging.arrived();
    return new Promise(() => undefined);
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** The prototype a request and a response have when Node hands them out, before Express runs. */
function prototypesAtConstruction(app: INestApplication) {
  const seen: { req?: object; res?: object } = {};
  (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: unknown) => {
    seen.req = Object.getPrototypeOf(req) as object;
    seen.res = Object.getPrototypeOf(res) as object;
  });
  return seen;
}

describe('StableExpressAdapter', () => {
  let app: INestApplication;
  afterEach(async () => {
    await app?.close();
  });

  it("builds requests and responses with Express's prototypes before Express sees them", async () => {
    app = await NestFactory.create(ProbeModule, new StableExpressAdapter(), { logger: false });
    await app.init();
    const seen = prototypesAtConstruction(app);
    const express = app.getHttpAdapter().getInstance() as Express;
    expect((await request(app.getHttpServer()).get('/probe')).status).toBe(200);
    expect(seen.req).toBe(express.request);
    expect(seen.res).toBe(express.response);
  });

  it('the default adapter does not (so the test above can tell them apart)', async () => {
    app = await NestFactory.create(ProbeModule, { logger: false });
    await app.init();
    const seen = prototypesAtConstruction(app);
    const express = app.getHttpAdapter().getInstance() as Express;
    expect((await request(app.getHttpServer()).get('/probe')).status).toBe(200);
    expect(seen.req).not.toBe(express.request);
  });

  it('requests and responses behave as Express ones: query, ip, host, body parser, status, headers, json', async () => {
    app = await NestFactory.create(ProbeModule, new StableExpressAdapter(), { logger: false });
    await app.init();
    const got = await request(app.getHttpServer()).get('/probe?q=hello').set('Host', 'kadu.test');
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      q: 'hello',
      ip: expect.stringMatching(/127\.0\.0\.1/),
      host: 'kadu.test',
      path: '/probe',
      protocol: 'http',
    });
    const posted = await request(app.getHttpServer()).post('/probe').send({ a: 1 });
    expect(posted.status).toBe(201);
    expect(posted.headers['x-probe']).toBe('yes');
    expect(posted.headers['content-type']).toMatch(/^application\/json/);
    expect(posted.body).toEqual({ body: { a: 1 } });
    expect((await request(app.getHttpServer()).get('/nowhere')).status).toBe(404);
  });

  it("keeps Nest's forceCloseConnections: closing the app ends a request still in flight", async () => {
    app = await NestFactory.create(ProbeModule, new StableExpressAdapter(), {
      logger: false,
      forceCloseConnections: true,
    });
    await app.listen(0, '127.0.0.1');
    const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
    const inFlight = new Promise<void>((resolve) => (hanging.arrived = resolve));
    const outcome = new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/probe/hang' }, () => resolve('answered'));
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      req.end();
    });
    await inFlight;
    await app.close();
    expect(await outcome).toBe('ECONNRESET');
  });
});
