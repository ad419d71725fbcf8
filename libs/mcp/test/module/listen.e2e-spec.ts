import { Injectable, Module, NotFoundException, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ListenStreams,
  McpArg,
  McpEvents,
  McpModule,
  type McpModuleOptions,
  McpResourceTemplate,
  McpTool,
} from '@kobana/nest-mcp';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { ListenStream, modernRequest, SUB } from '@kobana/nest-mcp/testing';

/**
 * Issue 21, the module alone (no authentication): what discover advertises follows the
 * subscription options; list-changed kinds reach only the streams that asked for them; the
 * graceful end on shutdown.
 */
@Injectable()
class Catalog {
  @McpTool({ name: 'noop', description: 'Does nothing.' })
  noop() {
    return 'ok';
  }

  /** One readable item; any other id is the app's own 404, as another tenant's record would be. */
  @McpResourceTemplate({ uriTemplate: 'test://items/{id}', name: 'item', description: 'One item.', bind: { id: 'id' } })
  item(@McpArg('id') id: string) {
    if (id !== 'i1') throw new NotFoundException(`No item ${id}`);
    return { id };
  }
}

async function boot(options: Partial<McpModuleOptions>): Promise<{ app: INestApplication; base: string }> {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 't', version: '1' },
        rateLimits: { general: false, writes: false, failedAuth: false },
        ...options,
      }),
    ],
    providers: [Catalog],
  })
  class AppModule {}
  const app = await NestFactory.create(AppModule, new StableExpressAdapter(), { logger: false, bodyParser: false });
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
}

async function post(base: string, method: string, params: Record<string, unknown> = {}) {
  const r = modernRequest(method, params, { id: 1 });
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: r.headers, body: JSON.stringify(r.body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('subscriptions/listen in the module', () => {
  it('without subscription options: nothing advertised, listen is an unknown method (404 -32601)', async () => {
    const { app, base } = await boot({});
    try {
      expect((await post(base, 'server/discover')).body.result.capabilities).toEqual({
        tools: {},
        prompts: {},
        resources: {},
        completions: {},
      });
      const listen = await post(base, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
      expect(listen.status).toBe(404);
      expect(listen.body.error.code).toBe(-32601);
    } finally {
      await app.close();
    }
  });

  describe('with list-changed kinds offered', () => {
    let app: INestApplication;
    let base: string;
    beforeAll(async () => {
      ({ app, base } = await boot({ subscriptions: { toolsListChanged: true, promptsListChanged: true } }));
    });
    afterAll(() => app?.close());

    it('discover advertises exactly the offered kinds', async () => {
      expect((await post(base, 'server/discover')).body.result.capabilities).toEqual({
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: {},
        completions: {},
      });
    });

    it('each stream hears only the kinds it asked for and the server offers', async () => {
      const tools = await ListenStream.open(
        base,
        'none',
        { toolsListChanged: true, resourcesListChanged: true },
        'tools',
      );
      const prompts = await ListenStream.open(base, 'none', { promptsListChanged: true }, 'prompts');
      try {
        expect((await tools.next(() => true, 'ack')).params.notifications).toEqual({ toolsListChanged: true });
        expect((await prompts.next(() => true, 'ack')).params.notifications).toEqual({ promptsListChanged: true });
        const events = app.get(McpEvents);
        await events.toolsChanged();
        await events.resourcesChanged();
        await events.promptsChanged();
        await tools.next((m) => m.method === 'notifications/tools/list_changed', 'tools/list_changed');
        await prompts.next((m) => m.method === 'notifications/prompts/list_changed', 'prompts/list_changed');
        // One more of each after, so that anything wrongly sent before would already be there.
        await events.toolsChanged();
        await tools.next(
          (m) => m.method === 'notifications/tools/list_changed',
          'the second tools/list_changed',
          20_000,
          2,
        );
        expect(tools.messages.map((m) => m.method)).toEqual([
          'notifications/subscriptions/acknowledged',
          'notifications/tools/list_changed',
          'notifications/tools/list_changed',
        ]);
        expect(prompts.messages.map((m) => m.method)).toEqual([
          'notifications/subscriptions/acknowledged',
          'notifications/prompts/list_changed',
        ]);
        expect(tools.messages[1]).toEqual({
          jsonrpc: '2.0',
          method: 'notifications/tools/list_changed',
          params: { _meta: { [SUB]: 'tools' } },
        });
      } finally {
        tools.close();
        prompts.close();
      }
    });

    it('a closed stream is forgotten by the server', async () => {
      const stream = await ListenStream.open(base, 'none', { toolsListChanged: true });
      await stream.next(() => true, 'ack');
      const streams = app.get(ListenStreams);
      const before = streams.size;
      stream.close();
      for (let i = 0; i < 200 && streams.size >= before; i++) await new Promise((r) => setTimeout(r, 25));
      expect(streams.size).toBe(before - 1);
    });

    it('app.close() ends open streams with the listen result', async () => {
      const stream = await ListenStream.open(base, 'none', { promptsListChanged: true }, 'closing');
      await stream.next(() => true, 'ack');
      await app.close();
      await stream.ended;
      expect(stream.messages.at(-1)).toEqual({
        jsonrpc: '2.0',
        id: 'closing',
        result: { resultType: 'complete', _meta: { [SUB]: 'closing' } },
      });
    });
  });
});

describe('subscriptions/listen with the event bus unreachable', () => {
  it('the app still starts and answers, and listen streams still open', async () => {
    const { RedisEventBus } = await import('@kobana/nest-mcp/redis');
    const { app, base } = await boot({
      subscriptions: {
        eventBus: new RedisEventBus('redis://127.0.0.1:1', 'x:', { timeoutMs: 300 }),
        toolsListChanged: true,
      },
    });
    try {
      expect((await post(base, 'server/discover')).body.result.capabilities.tools).toEqual({ listChanged: true });
      const stream = await ListenStream.open(base, 'none', { toolsListChanged: true }, 'down');
      expect((await stream.next(() => true, 'ack')).method).toBe('notifications/subscriptions/acknowledged');
      stream.close();
    } finally {
      await app.close();
    }
  });
});

describe('subscriptions/listen to a resource the caller cannot read', () => {
  let app: INestApplication;
  let base: string;
  beforeAll(async () => {
    ({ app, base } = await boot({ subscriptions: { resourceSubscriptions: true } }));
  });
  afterAll(() => app?.close());

  it('is refused as resources/read refuses it: the app\'s 404 is "Resource not found" with the URI', async () => {
    const refused = await ListenStream.open(base, 'none', { resourceSubscriptions: ['test://items/i2'] }, 'x');
    expect(refused.status).toBe(200);
    expect(refused.contentType).toMatch(/^application\/json/);
    const read = await post(base, 'resources/read', { uri: 'test://items/i2' });
    expect(read.body.error).toEqual({
      code: -32602,
      message: 'Resource not found: test://items/i2',
      data: { uri: 'test://items/i2' },
    });
    expect(refused.refusal).toEqual({ jsonrpc: '2.0', id: 'x', error: read.body.error });
  });

  it('a readable one opens the stream', async () => {
    const stream = await ListenStream.open(base, 'none', { resourceSubscriptions: ['test://items/i1'] }, 'ok');
    try {
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      expect((await stream.next(() => true, 'ack')).params.notifications).toEqual({
        resourceSubscriptions: ['test://items/i1'],
      });
    } finally {
      stream.close();
    }
  });
});
