import { Body, Controller, type INestApplication, Injectable, Module, Post, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsInt, IsString, MaxLength, Min } from 'class-validator';
import request from 'supertest';
import { McpInput, McpModule, McpTool, principalFromUser } from '@kobana/nest-mcp';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import type { AppUser } from '../fixtures/api-key-app/api-key.guard.js';
import { createApiKeyAppModule } from '../fixtures/api-key-app/api-key-app.module.js';
import { NotesService } from '../fixtures/api-key-app/notes.service.js';
import { expectRpcResult } from '../support/wire.js';

/**
 * Issue 28, point 6: without a `validation` option the module validates tool arguments with the
 * host's own global ValidationPipe — `APP_PIPE` or `app.useGlobalPipes(…)` — so the same DTO
 * refuses the same input with the same message on the REST route and the tool.
 */
type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;
const ERAS: [string, Build][] = [
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
];
const errorOf = (result: Record<string, unknown>) =>
  JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;

describe.each(ERAS)("the host's APP_PIPE ValidationPipe, %s era", (_era, build) => {
  let app: INestApplication;
  beforeAll(async () => {
    const principal = principalFromUser((user: AppUser) => ({ subject: user.id, scopes: [] }));
    app = await NestFactory.create(createApiKeyAppModule({ principal }), { logger: false, abortOnError: false });
    await app.init();
    app.get(NotesService).reset();
  });
  afterAll(() => app.close());

  it.each([
    ['a number for text', { text: 5 }],
    ['an unknown field (forbidNonWhitelisted)', { text: 'ok', pinned: true }],
    ['a text over 200 characters', { text: 'x'.repeat(201) }],
  ])('%s: REST 400 and the tool isError with the same body', async (_what, input) => {
    const rest = await request(app.getHttpServer()).post('/notes').set('X-Api-Key', 'ana-key').send(input);
    expect(rest.status).toBe(400);
    const r = build('tools/call', { name: 'notes_create', arguments: input }, { id: 1 });
    const res = await request(app.getHttpServer()).post('/mcp').set(r.headers).set('X-Api-Key', 'ana-key').send(r.body);
    const result = expectRpcResult(res, 1);
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toEqual(rest.body);
  });

  it('publishes a closed schema, as the pipe forbids unknown fields', async () => {
    const r = build('tools/list', {}, { id: 2 });
    const res = await request(app.getHttpServer()).post('/mcp').set(r.headers).set('X-Api-Key', 'ana-key').send(r.body);
    const tools = expectRpcResult(res, 2).tools as { name: string; inputSchema: Record<string, unknown> }[];
    expect(tools.find((t) => t.name === 'notes_create')!.inputSchema).toMatchObject({
      properties: { text: { type: 'string', maxLength: 200 } },
      additionalProperties: false,
    });
  });
});

class OrderDto {
  @IsString()
  @MaxLength(10)
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

@Injectable()
class OrdersService {
  @McpTool({ name: 'orders_place', description: 'Places an order' })
  place(@McpInput() dto: OrderDto) {
    return { placed: dto.quantity };
  }
}

@Controller('orders')
class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  place(@Body() dto: OrderDto) {
    return this.orders.place(dto);
  }
}

describe.each(ERAS)("the host's app.useGlobalPipes ValidationPipe, %s era", (_era, build) => {
  let app: INestApplication;
  beforeAll(async () => {
    @Module({
      imports: [
        McpModule.forRoot({
          serverInfo: { name: 'orders', version: '1' },
          principal: () => ({ subject: 'a', scopes: [] }),
        }),
      ],
      controllers: [OrdersController],
      providers: [OrdersService],
    })
    class OrdersModule {}
    app = await NestFactory.create(OrdersModule, { logger: false, abortOnError: false });
    // Messages of the app's own choosing: the tool must answer with them, not the defaults.
    app.useGlobalPipes(
      new ValidationPipe({
        transform: true,
        whitelist: true,
        forbidNonWhitelisted: true,
        stopAtFirstError: true,
        errorHttpStatusCode: 422,
      }),
    );
    await app.init();
  });
  afterAll(() => app.close());

  it.each([
    ['a quantity of 0', { sku: 'a', quantity: 0 }],
    ['a string quantity', { sku: 'a', quantity: '2' }],
    ['an unknown field', { sku: 'a', quantity: 1, discount: 5 }],
  ])('%s: REST 422 and the tool isError with the same body', async (_what, input) => {
    const rest = await request(app.getHttpServer()).post('/orders').send(input);
    expect(rest.status).toBe(422);
    const r = build('tools/call', { name: 'orders_place', arguments: input }, { id: 3 });
    const result = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 3);
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toEqual(rest.body);
  });

  it('a valid order passes both, transformed alike', async () => {
    const rest = await request(app.getHttpServer()).post('/orders').send({ sku: 'a', quantity: 2 });
    expect(rest.body).toEqual({ placed: 2 });
    const r = build('tools/call', { name: 'orders_place', arguments: { sku: 'a', quantity: 2 } }, { id: 4 });
    const result = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 4);
    expect(errorOf(result)).toEqual({ placed: 2 });
  });
});
