import { request as httpRequest, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import {
  Body,
  Controller,
  Get,
  Headers,
  type INestApplication,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import express, { type Express, type Request, type Response } from 'express';
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

/** What a handler sees of `req.headers` after middleware changed it in place, or replaced it. */
@Controller('headers')
class HeadersController {
  @Get()
  read(@Req() req: Request, @Headers('x-replaced') replaced: string | undefined) {
    const first = req.headers;
    return {
      same: first === req.headers,
      probe: req.get('x-probe'),
      added: req.get('x-added'),
      replaced,
      raw: req.rawHeaders.includes('X-Probe'),
      keys: Object.keys(req.headers).filter((key) => key.startsWith('x-')),
      // Which accessor answered: the adapter's keeps what it read (the default adapter's is Node's).
      kept: '_keptHeaders' in req,
    };
  }
}

@Module({ controllers: [HeadersController] })
class HeadersModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((req: Request, _res: Response, next: () => void) => {
        // Read before either change: whatever the first read built must not hide the changes.
        void req.headers['x-probe'];
        if (req.query.change === 'add') req.headers['x-added'] = 'added';
        if (req.query.change === 'replace') req.headers = { ...req.headers, 'x-replaced': 'replaced' };
        if (req.query.change === 'reset') {
          // Node's getter builds the headers again from rawHeaders once they are set to nothing.
          req.headers['x-added'] = 'added';
          (req as { headers: unknown }).headers = null;
        }
        next();
      })
      .forRoutes('headers');
  }
}

/** The prototype a request and a response have when Node hands them out, before Express runs. */
function prototypesAtConstruction(app: INestApplication) {
  const seen: { req?: object; res?: object } = {};
  (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: unknown) => {
    seen.req = Object.getPrototypeOf(req) as object;
    seen.res = Object.getPrototypeOf(res) as object;
  });
  return seen;
}

// V8's own answer to "is this object's layout a fixed shape, or a dictionary of properties?".
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** Whether V8 keeps the request and response in fast mode when Node hands them out, and once answered. */
function layoutsOf(app: INestApplication) {
  const seen: Record<string, boolean> = {};
  (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.req = hasFastProperties(req);
    seen.res = hasFastProperties(res);
    res.once('finish', () => {
      seen.reqAnswered = hasFastProperties(req);
      seen.resAnswered = hasFastProperties(res);
    });
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

  // bench/RESULTS.md, issue 32, fifteenth pass: a response built by applying Node's constructor to
  // another function's object was a dictionary of properties from the start (a route ~9 % dearer).
  it("builds them as V8 lays out Node's own: fixed shapes, not dictionaries of properties", async () => {
    app = await NestFactory.create(ProbeModule, new StableExpressAdapter(), { logger: false });
    await app.init();
    const seen = layoutsOf(app);
    // Through Nest's body parser, Express's re-parenting and a handler that sets a header.
    expect((await request(app.getHttpServer()).post('/probe').send({ a: 1 })).status).toBe(201);
    expect(seen).toEqual({ req: true, res: true, reqAnswered: true, resAnswered: true });
  });

  it("keeps what apps add to Express's prototypes, before or after the app is created, and Node's constructors", async () => {
    type Extended = Record<string, unknown>;
    const instance = express();
    const named = (name: string) =>
      function () {
        return name;
      };
    const globalResponse = express.response as unknown as Extended;
    // A reference to the app's prototype taken before the adapter replaces it, extended before and after.
    const early = instance.response as unknown as Extended;
    try {
      globalResponse.kobanaGlobal = named('global');
      early.kobanaEarly = named('early');
      app = await NestFactory.create(ProbeModule, new StableExpressAdapter(instance), { logger: false });
      early.kobanaLate = named('late');
      (instance.response as unknown as Extended).kobanaApp = named('app');
      (instance.request as unknown as Extended).kobanaRequest = 'request';
      await app.init();
      // Read as Node hands the objects out, before Express re-parents anything.
      let seen: Record<string, unknown> = {};
      (app.getHttpServer() as Server).prependListener('request', (req: IncomingMessage, res: object) => {
        // A missing method fails the expectation below, not the request (which would then hang).
        try {
          const r = res as Record<string, () => string> & { app: unknown; constructor: unknown };
          seen = {
            methods: [r.kobanaGlobal(), r.kobanaEarly(), r.kobanaLate(), r.kobanaApp()],
            app: r.app,
            resConstructor: r.constructor,
            isResponse: res instanceof ServerResponse,
            request: (req as unknown as Extended).kobanaRequest,
            reqConstructor: req.constructor,
          };
        } catch (error) {
          seen = { error: String(error) };
        }
      });
      expect((await request(app.getHttpServer()).get('/probe')).status).toBe(200);
      expect(seen).toEqual({
        methods: ['global', 'early', 'late', 'app'],
        app: instance,
        resConstructor: ServerResponse,
        isResponse: true,
        request: 'request',
        reqConstructor: IncomingMessage,
      });
    } finally {
      delete globalResponse.kobanaGlobal;
    }
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

  // bench/RESULTS.md, issue 32, twentieth pass: the adapter's requests keep the object Node's
  // getter builds. What a handler reads must be what it reads on Node's own requests.
  it.each(['add', 'replace', 'reset', 'none'])(
    "req.headers reads as on Node's own requests after middleware changed it (%s)",
    async (change) => {
      const answers = [];
      for (const adapter of [undefined, new StableExpressAdapter()]) {
        app = adapter
          ? await NestFactory.create(HeadersModule, adapter, { logger: false })
          : await NestFactory.create(HeadersModule, { logger: false });
        await app.init();
        const got = await request(app.getHttpServer()).get(`/headers?change=${change}`).set('X-Probe', 'probe');
        expect(got.status).toBe(200);
        const { kept, ...answer } = got.body as { kept: boolean };
        expect(kept).toBe(adapter !== undefined);
        answers.push(answer);
        await app.close();
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[1]).toEqual({
        same: true,
        probe: 'probe',
        ...(change === 'add' ? { added: 'added' } : {}),
        ...(change === 'replace' ? { replaced: 'replaced' } : {}),
        raw: true,
        keys: ['x-probe', ...(change === 'add' ? ['x-added'] : []), ...(change === 'replace' ? ['x-replaced'] : [])],
      });
    },
  );

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
