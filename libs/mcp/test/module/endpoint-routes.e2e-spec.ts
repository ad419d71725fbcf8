import { Controller, Get, type INestApplication, Module, Param, Post, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Express } from 'express';
import request from 'supertest';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { createToolsAppModule, VALIDATION } from '../fixtures/tools-app/tools-app.module.js';
import { expectRpcResult } from '../support/wire.js';

/**
 * The endpoint's route is moved ahead of the host's unrelated routes at bootstrap
 * (http/endpoint-routes.ts): a host whose controllers are registered before the module's still
 * answers every route as before, the endpoint answers, and a host route that matches the
 * endpoint's path and was declared first still answers first.
 */
@Controller('things')
class ThingsController {
  @Get()
  list() {
    return { things: [] };
  }

  @Get(':id')
  one(@Param('id') id: string) {
    return { id };
  }

  @Post()
  create() {
    return { created: true };
  }
}

@Controller()
class PagesController {
  @Get(':page')
  page(@Param('page') page: string) {
    return { page };
  }
}

const routePaths = (app: INestApplication) =>
  (app.getHttpAdapter().getInstance() as Express & { router: { stack: { route?: { path: string } }[] } }).router.stack
    .map((layer) => layer.route?.path)
    .filter(Boolean);

describe.each([
  ['the host routes only', [ThingsController]],
  ['a host route for any page declared before', [ThingsController, PagesController]],
])('the endpoint route behind %s', (name, controllers) => {
  let app: INestApplication;
  const pages = controllers.includes(PagesController);

  beforeAll(async () => {
    @Module({ controllers })
    class HostRoutes {}
    @Module({ imports: [HostRoutes, createToolsAppModule()] })
    class HostApp {}
    app = await NestFactory.create(HostApp, { logger: false });
    app.useGlobalPipes(new ValidationPipe(VALIDATION));
    await app.init();
  });
  afterAll(() => app.close());

  it('comes before the routes it cannot shadow, and after one that matches its path', () => {
    const paths = routePaths(app);
    const endpoint = paths.lastIndexOf('/mcp');
    expect(endpoint).toBeLessThan(paths.indexOf('/echo'));
    // The host's routes are declared first; a route for any page stops the move right behind it.
    if (pages) expect(endpoint).toBe(paths.indexOf('/:page') + 1);
    else expect(endpoint).toBeLessThan(paths.indexOf('/things'));
  });

  it('answers tools/call', async () => {
    const r = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const res = await request(app.getHttpServer())
      .post('/mcp')
      .set(r.headers)
      .set('Authorization', 'Bearer admin-token')
      .send(r.body);
    const result = expectRpcResult(res, r.body.id as number) as { content: { text: string }[] };
    expect(JSON.parse(result.content[0]!.text)).toEqual({ data: { text: 'hi', is_dto: true } });
  });

  it("leaves the host's routes answering as before", async () => {
    const server = app.getHttpServer();
    expect((await request(server).get('/things')).body).toEqual({ things: [] });
    expect((await request(server).get('/things/7')).body).toEqual({ id: '7' });
    expect((await request(server).post('/things')).body).toEqual({ created: true });
    const echo = await request(server).post('/echo').set('Authorization', 'Bearer admin-token').send({ text: 'x' });
    expect(echo.status).toBe(201);
  });

  it(`GET /mcp: ${name === 'the host routes only' ? "the endpoint's answer" : 'the host page declared first'}`, async () => {
    const res = await request(app.getHttpServer()).get('/mcp').set('Authorization', 'Bearer admin-token');
    if (pages) expect([res.status, res.body]).toEqual([200, { page: 'mcp' }]);
    else expect(res.body).not.toEqual({ page: 'mcp' });
  });
});
