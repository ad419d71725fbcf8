import { type INestApplication, Injectable, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import {
  McpCaller,
  McpModule,
  type McpModuleOptions,
  McpTool,
  principalFromUser,
  type McpPrincipal,
} from '@kobana/nest-mcp';
import { legacyRequest, modernRequest, type McpTestRequest } from '@kobana/nest-mcp/testing';
import { type AppUser, CurrentUser } from '../fixtures/api-key-app/api-key.guard.js';
import { createApiKeyAppModule } from '../fixtures/api-key-app/api-key-app.module.js';
import { NotesService } from '../fixtures/api-key-app/notes.service.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/**
 * Issue 28, point 1: a host guard that sets its own user object (`{ id, email, roles }`) and no
 * `principal` option let every request through without a principal, and bob's `notes_list`
 * returned ana's notes. Now such a request never reaches a method (generic 500 -32603, one log
 * line for the operator naming what to set); with `principal` each user sees only their notes.
 */
type Build = (method: string, params?: Record<string, unknown>, options?: { id?: string | number }) => McpTestRequest;
const ERAS: [string, Build][] = [
  ['2026-07-28', modernRequest],
  ['2025', legacyRequest],
];

class CapturedLog implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  error(message: unknown): void {
    this.errors.push(String(message));
  }
}

async function start(module: unknown, log = new CapturedLog()): Promise<{ app: INestApplication; log: CapturedLog }> {
  const app = await NestFactory.create(module as never, { logger: log, abortOnError: false });
  await app.init();
  return { app, log };
}

const textOf = (result: Record<string, unknown>) =>
  JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;

const mcp = (app: INestApplication, r: McpTestRequest, key?: string) =>
  request(app.getHttpServer())
    .post('/mcp')
    .set(r.headers)
    .set(key ? { 'X-Api-Key': key } : {})
    .send(r.body);

describe.each(ERAS)('identity, %s era', (_era, build) => {
  const call = (name: string, args: Record<string, unknown> = {}) =>
    build('tools/call', { name, arguments: args }, { id: 7 });

  describe('a host guard with its own user object and no `principal` option', () => {
    let app: INestApplication;
    let log: CapturedLog;
    beforeAll(async () => {
      ({ app, log } = await start(createApiKeyAppModule()));
      app.get(NotesService).reset();
    });
    afterAll(() => app.close());

    it("refuses bob's notes_list with a generic 500 -32603 instead of handing him ana's notes", async () => {
      const res = await mcp(app, call('notes_list'), 'bob-key');
      const error = expectRpcError(res, 500, -32603, 7);
      expect(error.message).toMatch(/^Internal error \(request id [\w-]+\)$/);
      expect(res.text).not.toContain("Ana's secret");
      expect(res.text).not.toContain('req.user');
    });

    it('refuses every method, the host decorator too, and a write changes nothing', async () => {
      expectRpcError(await mcp(app, call('whoami'), 'ana-key'), 500, -32603, 7);
      expectRpcError(await mcp(app, call('notes_create', { text: 'x' }), 'ana-key'), 500, -32603, 7);
      expectRpcError(await mcp(app, build('tools/list', {}, { id: 7 }), 'ana-key'), 500, -32603, 7);
      const rest = await request(app.getHttpServer()).get('/notes').set('X-Api-Key', 'ana-key');
      expect(rest.body).toEqual([{ id: 'a1', ownerId: 'ana', text: "Ana's secret" }]);
    });

    it('still lets the guard refuse a request without a key (its 401)', async () => {
      const res = await mcp(app, call('notes_list'));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'invalid_api_key' });
    });

    it('tells the operator once per process what to set, naming the shape but no value', () => {
      const lines = log.errors.filter((line) => line.includes('McpModule refuses MCP requests'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('req.user is an object with id, email, roles');
      expect(lines[0]).toContain('set `principal`');
      expect(lines[0]).toContain('principalFromUser');
      expect(lines[0]).not.toContain('ana@example.com');
    });
  });

  describe('the same app with the documented `principal`', () => {
    let app: INestApplication;
    const principal = principalFromUser((user: AppUser) => ({ subject: user.id, scopes: [], roles: user.roles }));
    beforeAll(async () => {
      ({ app } = await start(createApiKeyAppModule({ principal })));
      app.get(NotesService).reset();
    });
    afterAll(() => app.close());

    it('each user sees only their notes, and what one creates is theirs', async () => {
      expect(textOf(expectRpcResult(await mcp(app, call('notes_list'), 'bob-key'), 7))).toEqual([
        { id: 'b1', ownerId: 'bob', text: "Bob's list" },
      ]);
      const created = textOf(expectRpcResult(await mcp(app, call('notes_create', { text: 'Bob only' }), 'bob-key'), 7));
      expect(created).toMatchObject({ ownerId: 'bob', text: 'Bob only' });
      const ana = textOf(expectRpcResult(await mcp(app, call('notes_list'), 'ana-key'), 7));
      expect(ana).toEqual([{ id: 'a1', ownerId: 'ana', text: "Ana's secret" }]);
      const rest = await request(app.getHttpServer()).get('/notes').set('X-Api-Key', 'bob-key');
      expect(rest.body).toEqual([
        { id: 'b1', ownerId: 'bob', text: "Bob's list" },
        { id: expect.any(String), ownerId: 'bob', text: 'Bob only' },
      ]);
      app.get(NotesService).reset();
    });

    it("the host's @CurrentUser() on a tool gets the guard's user object, its pipe run", async () => {
      const result = expectRpcResult(await mcp(app, call('whoami'), 'ana-key'), 7);
      expect(textOf(result)).toEqual({ id: 'ana', email: 'ana@example.com', shouted: 'ANA@EXAMPLE.COM' });
    });

    it("bob cannot delete ana's note: the preflight with the tool's own parameters refuses it", async () => {
      const result = expectRpcResult(await mcp(app, call('notes_delete', { id: 'a1' }), 'bob-key'), 7);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toEqual({ error: 'note_not_found' });
      const rest = await request(app.getHttpServer()).get('/notes').set('X-Api-Key', 'ana-key');
      expect(rest.body).toHaveLength(1);
    });
  });

  it('a `principal` that finds nobody after the guards passed is refused, never run as nobody', async () => {
    const log = new CapturedLog();
    const { app } = await start(createApiKeyAppModule({ principal: () => undefined }), log);
    app.get(NotesService).reset();
    try {
      expectRpcError(await mcp(app, call('notes_list'), 'bob-key'), 500, -32603, 7);
      expect(log.errors.join('\n')).toContain('the `principal` option returned nothing');
    } finally {
      await app.close();
    }
  });

  it('a `principal` that returns something else than { subject, scopes } is refused', async () => {
    const log = new CapturedLog();
    const { app } = await start(
      createApiKeyAppModule({ principal: ((req: { user?: AppUser }) => req.user) as McpModuleOptions['principal'] }),
      log,
    );
    try {
      expectRpcError(await mcp(app, call('notes_list'), 'bob-key'), 500, -32603, 7);
      expect(log.errors.join('\n')).toContain('the `principal` option returned an object with id, email, roles');
    } finally {
      await app.close();
    }
  });
});

@Injectable()
class OpenService {
  @McpTool({ name: 'time', description: 'The time', annotations: { readOnlyHint: true } })
  time() {
    return { now: 'noon' };
  }

  @McpTool({ name: 'mine', description: "The caller's", annotations: { readOnlyHint: true } })
  mine(@McpCaller('subject') subject: string) {
    return { subject };
  }
}

describe.each(ERAS)('no guards declared, %s era', (_era, build) => {
  const call = (name: string) => build('tools/call', { name, arguments: {} }, { id: 3 });
  let app: INestApplication;
  let log: CapturedLog;
  beforeAll(async () => {
    @Module({ imports: [McpModule.forRoot({ serverInfo: { name: 'open', version: '1' } })], providers: [OpenService] })
    class OpenModule {}
    ({ app, log } = await start(OpenModule));
  });
  afterAll(() => app.close());

  it('an anonymous request is served by a method that does not take the caller', async () => {
    expect(textOf(expectRpcResult(await mcp(app, call('time')), 3))).toEqual({ now: 'noon' });
  });

  it('never reaches one that does: 500 -32603, the operator told which method and what to declare', async () => {
    expectRpcError(await mcp(app, call('mine')), 500, -32603, 3);
    expect(log.errors.join('\n')).toContain('OpenService.mine takes the caller (@McpCaller)');
  });

  it('a req.user some middleware set in another shape is refused, not taken as nobody', async () => {
    const middleware = (req: { user?: unknown }, _res: unknown, next: () => void) => {
      req.user = { id: 'ana' };
      next();
    };
    @Module({ imports: [McpModule.forRoot({ serverInfo: { name: 'open', version: '1' } })], providers: [OpenService] })
    class WithUserModule {}
    const app2 = await NestFactory.create(WithUserModule, { logger: false, abortOnError: false });
    app2.use(middleware);
    await app2.init();
    try {
      expectRpcError(await mcp(app2, call('time')), 500, -32603, 3);
    } finally {
      await app2.close();
    }
  });
});

describe('the caller at bootstrap', () => {
  async function boot(provider: unknown): Promise<void> {
    @Module({
      imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, principal: () => undefined })],
      providers: [provider as never],
    })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    try {
      await app.init();
    } finally {
      await app.close();
    }
  }

  it('refuses @McpCaller() on a string parameter, naming the place and the fix', async () => {
    @Injectable()
    class OwnerService {
      @McpTool({ name: 'owned', description: 'x' })
      list(@McpCaller() owner: string) {
        return owner;
      }
    }
    await expect(boot(OwnerService)).rejects.toThrow(
      "parameter #1 of OwnerService.list (tool): @McpCaller() gives the whole principal, which a String cannot hold: project what the method takes, e.g. @McpCaller('subject')",
    );
  });

  it("refuses @McpCaller('scopes') on a string, and takes @McpCaller() on an interface type", async () => {
    @Injectable()
    class ScopesService {
      @McpTool({ name: 'scopes', description: 'x' })
      list(@McpCaller('scopes') scopes: string) {
        return scopes;
      }
    }
    await expect(boot(ScopesService)).rejects.toThrow(
      "parameter #1 of ScopesService.list (tool): @McpCaller('scopes') gives a Array, which a parameter of type String does not take",
    );
    @Injectable()
    class WholeService {
      @McpTool({ name: 'whole', description: 'x' })
      list(@McpCaller() principal: McpPrincipal) {
        return principal.subject;
      }
    }
    await expect(boot(WholeService)).resolves.toBeUndefined();
  });

  it('refuses a tool parameter with a REST route decorator, and one with two decorators', async () => {
    const { Body } = await import('@nestjs/common');
    @Injectable()
    class BodyService {
      @McpTool({ name: 'body', description: 'x' })
      take(@Body() body: object) {
        return body;
      }
    }
    await expect(boot(BodyService)).rejects.toThrow(
      'parameter #1 of BodyService.take (tool) has a REST route decorator (@Body, @Param, @Query, @Headers, …)',
    );
    @Injectable()
    class TwiceService {
      @McpTool({ name: 'twice', description: 'x' })
      take(@McpCaller('subject') @CurrentUser() who: string) {
        return who;
      }
    }
    await expect(boot(TwiceService)).rejects.toThrow(
      'parameter #1 of TwiceService.take (tool) has more than one parameter decorator',
    );
  });
});
