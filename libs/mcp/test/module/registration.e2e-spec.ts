import type { Server } from 'node:http';
import {
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  Inject,
  Injectable,
  Module,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import {
  MCP_STATE_STORE,
  McpModule,
  type McpModuleOptions,
  type McpOptionsFactory,
  McpStateModule,
  type McpStateStore,
  McpTool,
  McpToolRegistry,
  RateLimits,
} from '@kobana/nest-mcp';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { expectRpcResult } from '../support/wire.js';

/** Registration the Nest way: the three async forms, the extras, and the state shared with the host's guards. */

const INFO = Symbol('INFO');

@Injectable()
class EchoService {
  @McpTool({ name: 'echo', description: 'Echoes.', annotations: { readOnlyHint: true } })
  echo() {
    return 'echo';
  }
}

@Injectable()
class OptionsFromClass implements McpOptionsFactory {
  constructor(@Inject(INFO) private readonly name: string) {}

  create(): McpModuleOptions {
    return { serverInfo: { name: this.name, version: '2' } };
  }
}

@Module({
  providers: [{ provide: INFO, useValue: 'from-a-class' }, OptionsFromClass],
  exports: [INFO, OptionsFromClass],
})
class OptionsModule {}

async function start(module: Type): Promise<INestApplication> {
  const app = await NestFactory.create(module, { bodyParser: false, logger: false, abortOnError: false });
  await app.init();
  return app;
}

async function discover(app: INestApplication, path = '/mcp') {
  const r = modernRequest('server/discover', {}, { id: 1 });
  const res = await request(app.getHttpServer() as Server)
    .post(path)
    .set(r.headers)
    .send(r.body);
  return { res, result: expectRpcResult(res, 1) };
}

describe('McpModule.forRootAsync', () => {
  it('takes its options from a factory, with the path fixed at registration', async () => {
    @Module({
      imports: [
        McpModule.forRootAsync({
          path: 'agents',
          imports: [OptionsModule],
          inject: [INFO],
          useFactory: (name: string) => ({ serverInfo: { name, version: '1' } }),
        }),
      ],
      providers: [EchoService],
    })
    class App {}
    const app = await start(App);
    try {
      const { result } = await discover(app, '/agents');
      expect((result._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo']!.name).toBe(
        'from-a-class',
      );
      const r = modernRequest('server/discover', {}, { id: 1 });
      expect(
        (
          await request(app.getHttpServer() as Server)
            .post('/mcp')
            .set(r.headers)
            .send(r.body)
        ).status,
      ).toBe(404);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['useClass', { useClass: OptionsFromClass, imports: [OptionsModule] }],
    ['useExisting', { useExisting: OptionsFromClass, imports: [OptionsModule] }],
  ])('takes its options from a class (%s) whose create() makes them', async (_form, options) => {
    @Module({ imports: [McpModule.forRootAsync(options)], providers: [EchoService] })
    class App {}
    const app = await start(App);
    try {
      const { result } = await discover(app);
      expect(
        (result._meta as Record<string, { name: string; version: string }>)['io.modelcontextprotocol/serverInfo'],
      ).toEqual({
        name: 'from-a-class',
        version: '2',
      });
    } finally {
      await app.close();
    }
  });
});

describe('global', () => {
  @Injectable()
  class NeedsRegistry {
    constructor(readonly registry: McpToolRegistry) {}
  }

  @Module({ providers: [NeedsRegistry] })
  class Sibling {}

  it('is off by default: a module that does not import McpModule cannot inject its registries', async () => {
    @Module({ imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' } }), Sibling] })
    class App {}
    await expect(start(App)).rejects.toThrow(/McpToolRegistry/);
  });

  it('makes the registries visible to every module when set', async () => {
    @Module({
      imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, global: true }), Sibling],
      providers: [EchoService],
    })
    class App {}
    const app = await start(App);
    try {
      expect(app.get(NeedsRegistry).registry.get('echo')?.name).toBe('echo');
    } finally {
      await app.close();
    }
  });
});

describe('McpStateModule', () => {
  /** A host guard on its own route that spends the same general budget as the endpoint. */
  @Injectable()
  class HostBudgetGuard implements CanActivate {
    constructor(private readonly limits: RateLimits) {}

    async canActivate(_context: ExecutionContext): Promise<boolean> {
      const verdict = await this.limits.consume('general', 'ana');
      return verdict?.allowed ?? true;
    }
  }

  @Injectable()
  class StoreHolder {
    constructor(@Inject(MCP_STATE_STORE) readonly store: McpStateStore) {}
  }

  it("is the state the endpoint and the host's own providers share, when given as `state` and imported by the host", async () => {
    const State = McpStateModule.forRoot({ rateLimits: { general: { points: 10, durationSec: 60 }, writes: false } });

    @Module({ imports: [State], providers: [HostBudgetGuard, StoreHolder], exports: [HostBudgetGuard, StoreHolder] })
    class HostModule {}

    @Module({
      imports: [
        HostModule,
        McpModule.forRoot({
          serverInfo: { name: 't', version: '1' },
          state: State,
          principal: () => ({ subject: 'ana', scopes: [] }),
        }),
      ],
      providers: [EchoService],
    })
    class App {}
    const app = await start(App);
    try {
      // The host spends 3 of the 10 points of the budget the endpoint uses for the same key.
      const guard = app.get(HostBudgetGuard);
      for (let i = 0; i < 3; i++) await guard.canActivate({} as ExecutionContext);
      const r = modernRequest('tools/list', {}, { id: 1 });
      const res = await request(app.getHttpServer() as Server)
        .post('/mcp')
        .set(r.headers)
        .send(r.body);
      expectRpcResult(res, 1);
      // One budget: 10 points, 3 spent by the host, 1 by this request.
      expect(res.headers['ratelimit-limit']).toBe('10');
      expect(res.headers['ratelimit-remaining']).toBe('6');
      expect(app.get(StoreHolder).store).toBe(app.get(MCP_STATE_STORE, { strict: false }));
    } finally {
      await app.close();
    }
  });

  it('is named by `state`: one among `imports` is refused at registration, with the fix in the message', () => {
    const State = McpStateModule.forRoot({});
    expect(() => McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, imports: [State] })).toThrow(
      'McpModule: give the McpStateModule as `state`, not among `imports`',
    );
  });
});
