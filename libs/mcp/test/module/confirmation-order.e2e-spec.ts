import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  type INestApplication,
  Module,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Request } from 'express';
import type { Server } from 'node:http';
import request from 'supertest';
import { IsObject, IsString, Matches, MaxLength } from 'class-validator';
import {
  InMemoryStateStore,
  McpArg,
  McpInput,
  McpModule,
  type McpModuleOptions,
  type McpPrincipal,
  McpTool,
} from '@kobana/nest-mcp';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { approvalPath, decide } from '../support/approvals.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/**
 * Issue 13 in the module: a destructive tool asks nobody until its arguments pass validation and
 * the service's preflight; approvals keep a bounded summary, are capped per caller and show the
 * same link when asked again; confirmation without a caller is refused at bootstrap and at run.
 */
const TOKENS: Record<string, McpPrincipal> = {
  'ana-token': { subject: 'ana', scopes: [] },
  'bea-token': { subject: 'bea', scopes: [] },
};

@Injectable()
class TokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request & { user?: McpPrincipal }>();
    const principal = TOKENS[/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? ''];
    if (!principal) throw new UnauthorizedException();
    req.user = principal;
    return true;
  }
}

class VoidDto {
  @IsString()
  @MaxLength(1_000_000)
  note: string;
}

class SettleDto {
  @IsObject()
  answers: Record<string, unknown>;
}

@Injectable()
class LedgerService {
  readonly entries = new Set(['e1', 'e2', 'e3', 'e4', 'e5']);
  readonly voided: string[] = [];
  preflights = 0;

  @McpTool({
    name: 'entries_void',
    title: 'Void an entry',
    description: 'Voids a ledger entry.',
    annotations: { destructiveHint: true },
    preflight: 'exists',
  })
  void(@McpArg('entry_id', { validators: [IsString(), Matches(/^e\d+$/)] }) id: string, @McpInput() dto: VoidDto) {
    this.voided.push(`${id}:${dto.note.length}`);
    return { voided: id };
  }

  @McpTool({
    name: 'entries_settle',
    title: 'Settle an entry',
    description: "Settles a ledger entry with the bank's answers.",
    annotations: { destructiveHint: true },
  })
  settle(@McpArg('entry_id', { validators: [IsString()] }) id: string, @McpInput() dto: SettleDto) {
    this.settled.push({ id, answers: dto.answers });
    return { settled: id };
  }

  readonly settled: { id: string; answers: Record<string, unknown> }[] = [];

  exists(id: string): void {
    this.preflights++;
    if (!this.entries.has(id)) throw new NotFoundException(`No entry ${id}`);
  }
}

class RecordingStore extends InMemoryStateStore {
  readonly written: { key: string; bytes: number; value: string }[] = [];
  override put(key: string, value: string, ttlMs: number): Promise<void> {
    this.written.push({ key, bytes: value.length, value });
    return super.put(key, value, ttlMs);
  }
  approvals(): number {
    return this.written.filter((w) => /^approval:/.test(w.key)).length;
  }
}

async function boot(
  options: Partial<McpModuleOptions>,
  guards: (typeof TokenGuard)[] = [TokenGuard],
): Promise<INestApplication> {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'ledger', version: '1' },
        guards,
        publicBaseUrl: 'http://localhost:3000',
        validation: { transform: true, whitelist: true, forbidNonWhitelisted: true },
        ...options,
      }),
    ],
    providers: [LedgerService],
  })
  class LedgerApp {}
  const app = await NestFactory.create(LedgerApp, { bodyParser: false, logger: false, abortOnError: false });
  await app.init();
  return app;
}

let app: INestApplication;
let server: Server;
let store: RecordingStore;
let ledger: LedgerService;

beforeAll(async () => {
  store = new RecordingStore();
  app = await boot({
    stateStore: store,
    approvals: { maxPendingPerPrincipal: 3 },
    rateLimits: { general: false, writes: false, failedAuth: false },
  });
  server = app.getHttpServer() as Server;
  ledger = app.get(LedgerService);
});
afterAll(() => app.close());

const call = (args: Record<string, unknown>, token = 'ana-token') => {
  const r = legacyRequest('tools/call', { name: 'entries_void', arguments: args }, { id: 'v' });
  return request(server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};
const withForm = (args: Record<string, unknown>) => {
  const r = modernRequest(
    'tools/call',
    { name: 'entries_void', arguments: args },
    { id: 'v', capabilities: { elicitation: {} } },
  );
  return request(server).post('/mcp').set(r.headers).set('Authorization', 'Bearer ana-token').send(r.body);
};
const withUrl = (args: Record<string, unknown>) => {
  const r = modernRequest(
    'tools/call',
    { name: 'entries_void', arguments: args },
    { id: 'v', capabilities: { elicitation: { url: {} } } },
  );
  return request(server).post('/mcp').set(r.headers).set('Authorization', 'Bearer ana-token').send(r.body);
};
const bodyOf = (res: request.Response) => {
  const result = expectRpcResult(res, 'v');
  return {
    isError: result.isError === true,
    body: JSON.parse((result.content as { text: string }[])[0]!.text),
    result,
  };
};

describe('validation and preflight come before any confirmation', () => {
  it.each([
    ['no arguments', {}],
    ['a malformed id', { entry_id: 'not-an-entry', note: 'x' }],
    ['a wrong type', { entry_id: 5, note: 'x' }],
    ['a null', { entry_id: null, note: 'x' }],
    ['an unknown field', { entry_id: 'e1', note: 'x', extra: 1 }],
  ])('%s: the validation error, no approval, no form, no preflight', async (_what, args) => {
    const approvals = store.approvals();
    const preflights = ledger.preflights;
    const legacy = bodyOf(await call(args));
    expect(legacy.isError).toBe(true);
    expect(legacy.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const modern = expectRpcResult(await withForm(args), 'v');
    expect(modern.resultType).toBe('complete');
    expect(modern.isError).toBe(true);
    expect(store.approvals()).toBe(approvals);
    expect(ledger.preflights).toBe(preflights);
    expect(ledger.voided).toEqual([]);
  });

  it("an entry the preflight does not find: the service's 404, no approval, no form", async () => {
    const approvals = store.approvals();
    const legacy = bodyOf(await call({ entry_id: 'e404', note: 'x' }));
    expect(legacy).toMatchObject({ isError: true, body: { statusCode: 404, message: 'No entry e404' } });
    const modern = bodyOf(await withForm({ entry_id: 'e404', note: 'x' }));
    expect(modern.result.resultType).toBe('complete');
    expect(modern.body).toMatchObject({ statusCode: 404 });
    expect(store.approvals()).toBe(approvals);
  });

  it('valid arguments for an existing entry: then, and only then, the person is asked', async () => {
    expect(expectRpcResult(await withForm({ entry_id: 'e1', note: 'typo' }), 'v').resultType).toBe('input_required');
    const first = bodyOf(await call({ entry_id: 'e1', note: 'typo' }, 'bea-token'));
    expect(first.body.error.code).toBe('approval_required');
    expect(ledger.voided).toEqual([]);
  });
});

describe('what an approval keeps', () => {
  it('a digest and a bounded summary: a 900 KB argument costs a few KB, and the page shows it cut visibly', async () => {
    const before = store.written.length;
    const first = bodyOf(await call({ entry_id: 'e2', note: 'n'.repeat(900_000) }, 'bea-token'));
    expect(first.body.error.code).toBe('approval_required');
    const stored = store.written.slice(before);
    expect(Math.max(...stored.map((w) => w.bytes))).toBeLessThan(4_000);
    expect(first.body.error.message.length).toBeLessThan(2_000);
    const page = await request(server).get(approvalPath(first.body.error.approval_url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('… (+899800 characters)');
    expect(page.text.length).toBeLessThan(10_000);
    // The digest still binds the exact call: approved, the retry with the whole argument runs it.
    await decide(server, first.body.error.approval_url, 'approve');
    expect(bodyOf(await call({ entry_id: 'e2', note: `${'n'.repeat(899_999)}m` }, 'bea-token')).body.error.code).toBe(
      'approval_required',
    );
    expect(bodyOf(await call({ entry_id: 'e2', note: 'n'.repeat(900_000) }, 'bea-token')).body).toEqual({
      voided: 'e2',
    });
    expect(ledger.voided).toEqual(['e2:900000']);
  });
});

describe('asking again while an approval is pending', () => {
  it('a retry while an approval is pending re-shows the same link: the page the person opened keeps working', async () => {
    const voided = [...ledger.voided];
    const first = bodyOf(await call({ entry_id: 'e3', note: 'x' })).body.error;
    // The person opens the page (and reads its form) before the model retries.
    const opened = await request(server).get(approvalPath(first.approval_url));
    expect(opened.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(opened.text)![1]!;
    for (let retry = 0; retry < 2; retry++) {
      const again = bodyOf(await call({ entry_id: 'e3', note: 'x' })).body.error;
      expect(again).toEqual({
        code: 'approval_pending',
        approval_id: first.approval_id,
        approval_url: first.approval_url,
        expires_at: first.expires_at,
        message: expect.stringContaining(first.approval_url),
      });
      expect(again.message).not.toMatch(/no longer works/);
    }
    expect(ledger.voided).toEqual(voided);
    const pressed = await request(server)
      .post(approvalPath(first.approval_url))
      .type('form')
      .send({ csrf, decision: 'approve' });
    expect(pressed.status).toBe(200);
    expect(pressed.text).toContain('<h1>Approved</h1>');
    expect(bodyOf(await call({ entry_id: 'e3', note: 'x' })).body).toEqual({ voided: 'e3' });
    expect(bodyOf(await call({ entry_id: 'e3', note: 'x' })).body.error.code).toBe('approval_required');
    expect(ledger.voided).toEqual([...voided, 'e3:1']);
  });

  it('the link is kept to be re-shown only sealed: its secret is in no stored value', async () => {
    const before = store.written.length;
    const first = bodyOf(await call({ entry_id: 'e5', note: 'sealed' })).body.error;
    const secret = new URL(first.approval_url).pathname.split('/').pop()!;
    expect(secret.length).toBeGreaterThanOrEqual(40);
    const stored = store.written.slice(before);
    expect(stored.length).toBeGreaterThan(0);
    for (const { key, value } of stored) {
      expect(key).not.toContain(secret);
      expect(value).not.toContain(secret);
    }
    expect(bodyOf(await call({ entry_id: 'e5', note: 'sealed' })).body.error.approval_url).toBe(first.approval_url);
  });

  it('2026 with URL elicitation only: a second call without its state gets the same link, not a second approval', async () => {
    const approvals = store.approvals();
    const ask = (res: request.Response) =>
      (expectRpcResult(res, 'v').inputRequests as Record<string, { params: { url: string } }>).approval!.params.url;
    const first = ask(await withUrl({ entry_id: 'e4', note: 'x' }));
    const second = ask(await withUrl({ entry_id: 'e4', note: 'x' }));
    expect(second).toBe(first);
    expect(store.approvals()).toBe(approvals + 1);
    expect((await request(server).get(approvalPath(first))).status).toBe(200);
  });
});

describe('the confirmation sentence and the summary', () => {
  const answers = {
    decision: 'L-2',
    password: 'hunter2-pw-8841',
    api_key: 'ak_live_5530',
    nested: { client_secret: 'cs_live_7719' },
  };
  const secrets = ['hunter2-pw-8841', 'ak_live_5530', 'cs_live_7719'];

  it('the confirmation sentence never contains an argument the summary redacts: one redaction rule for both', async () => {
    const recorded = new RecordingStore();
    const quoting = await boot({
      stateStore: recorded,
      rateLimits: { general: false, writes: false, failedAuth: false },
      // A host sentence that quotes the arguments as JSON, as a quick describeConfirmation would.
      describeConfirmation: (tool, args) => `${tool.title} with ${JSON.stringify(args)}.`,
    });
    const settle = (server: Server, form: boolean) => {
      const params = { name: 'entries_settle', arguments: { entry_id: 'e1', answers } };
      const r = form
        ? modernRequest('tools/call', params, { id: 'v', capabilities: { elicitation: {} } })
        : legacyRequest('tools/call', params, { id: 'v' });
      return request(server).post('/mcp').set(r.headers).set('Authorization', 'Bearer ana-token').send(r.body);
    };
    try {
      const at = quoting.getHttpServer() as Server;
      const asked = expectRpcResult(await settle(at, true), 'v');
      const form = JSON.stringify(asked.inputRequests);
      expect(form).toContain('[redacted]');
      expect(form).toContain('L-2');

      const first = bodyOf(await settle(at, false)).body.error;
      expect(first.code).toBe('approval_required');
      expect(first.message).toContain('"password":"[redacted]"');
      const page = await request(at).get(approvalPath(first.approval_url));
      expect(page.status).toBe(200);
      expect(page.text).toContain('[redacted]');
      const stored = recorded.written.map((w) => w.value).join('\n');
      expect(stored).toContain('[redacted]');
      for (const secret of secrets) {
        expect(form).not.toContain(secret);
        expect(first.message).not.toContain(secret);
        expect(page.text).not.toContain(secret);
        expect(stored).not.toContain(secret);
      }
      // The digest binds the real arguments: approved, the retry runs with them, whole.
      await decide(at, first.approval_url, 'approve');
      expect(bodyOf(await settle(at, false)).body).toEqual({ settled: 'e1' });
      expect(quoting.get(LedgerService).settled).toEqual([{ id: 'e1', answers }]);
    } finally {
      await quoting.close();
    }
  });
});

describe('a cap on pending approvals per caller', () => {
  it('past the cap nothing new is stored; another caller is unaffected; deciding one makes room', async () => {
    const capped = await boot({
      stateStore: new InMemoryStateStore(),
      approvals: { maxPendingPerPrincipal: 2 },
      rateLimits: { general: false, writes: false, failedAuth: false },
    });
    const send = (id: string, token = 'ana-token') => {
      const r = legacyRequest(
        'tools/call',
        { name: 'entries_void', arguments: { entry_id: id, note: 'x' } },
        { id: 'v' },
      );
      return request(capped.getHttpServer())
        .post('/mcp')
        .set(r.headers)
        .set('Authorization', `Bearer ${token}`)
        .send(r.body);
    };
    try {
      const one = bodyOf(await send('e1')).body.error;
      expect(bodyOf(await send('e2')).body.error.code).toBe('approval_required');
      const refused = bodyOf(await send('e3'));
      expect(refused.isError).toBe(true);
      expect(refused.body.error).toMatchObject({ code: 'too_many_pending_approvals', retry_after: expect.any(Number) });
      expect(refused.body.error.approval_url).toBeUndefined();
      // Asking again for a pending one still works (no new record): the same link.
      expect(bodyOf(await send('e1')).body.error).toMatchObject({
        code: 'approval_pending',
        approval_url: one.approval_url,
      });
      expect(bodyOf(await send('e3', 'bea-token')).body.error.code).toBe('approval_required');
      const fresh = bodyOf(await send('e1')).body.error.approval_url;
      expect((await decide(capped.getHttpServer() as Server, fresh, 'reject')).status).toBe(200);
      expect(one.approval_id).toBeDefined();
      expect(bodyOf(await send('e3')).body.error.code).toBe('approval_required');
    } finally {
      await capped.close();
    }
  });
});

describe('confirmation needs a caller', () => {
  it('refuses to start with destructive tools to confirm and no authentication declared, saying what to do', async () => {
    await expect(boot({}, [])).rejects.toThrow(
      /entries_void on LedgerService\.void.*no authentication is declared.*guards.*destructiveTools: 'refuse'/s,
    );
  });

  it("starts when told not to confirm over MCP ('refuse'), and then never runs the tool", async () => {
    const refusing = await boot({ destructiveTools: 'refuse' }, []);
    try {
      const r = legacyRequest(
        'tools/call',
        { name: 'entries_void', arguments: { entry_id: 'e5', note: 'x' } },
        { id: 'v' },
      );
      const res = await request(refusing.getHttpServer()).post('/mcp').set(r.headers).send(r.body);
      expect(bodyOf(res).body.error.code).toBe('confirmation_required');
      expect(refusing.get(LedgerService).voided).toEqual([]);
    } finally {
      await refusing.close();
    }
  });

  it('with a principal() that finds nobody, the call is refused, never confirmed as a shared "anonymous"', async () => {
    const open = await boot(
      {
        principal: (req) =>
          req.headers['x-user'] ? { subject: String(req.headers['x-user']), scopes: [] } : undefined,
      },
      [],
    );
    try {
      const r = legacyRequest(
        'tools/call',
        { name: 'entries_void', arguments: { entry_id: 'e5', note: 'x' } },
        { id: 'v' },
      );
      const nobody = bodyOf(await request(open.getHttpServer()).post('/mcp').set(r.headers).send(r.body));
      expect(nobody.body.error.code).toBe('confirmation_unavailable');
      const someone = bodyOf(
        await request(open.getHttpServer()).post('/mcp').set(r.headers).set('X-User', 'carla').send(r.body),
      );
      expect(someone.body.error.code).toBe('approval_required');
    } finally {
      await open.close();
    }
  });
});

describe('one JSON depth limit at the door', () => {
  // The body is written by hand: a client's own JSON.stringify cannot write 5,000 levels.
  const send = (deep: number) => {
    const r = legacyRequest(
      'tools/call',
      { name: 'entries_void', arguments: { entry_id: 'e1', note: 'x' } },
      { id: 'v' },
    );
    const text = JSON.stringify(r.body).replace(
      '"note":"x"',
      `"note":"x","deep":${'{"a":'.repeat(deep)}"x"${'}'.repeat(deep)}`,
    );
    return request(server)
      .post('/mcp')
      .set(r.headers)
      .set('Authorization', 'Bearer ana-token')
      .set('Content-Type', 'application/json')
      .send(text);
  };

  it('64 levels in all pass the door; 65 and 5,000 answer 400 -32600 naming the limit', async () => {
    // The message itself is 3 levels (body, params, arguments): 61 more inside the arguments make 64.
    const passed = await send(61);
    expect(passed.status).toBe(200);
    // Past the door, the tool's own validation answers (the unknown field), not a depth error.
    expect(passed.body.result.isError).toBe(true);
    for (const levels of [62, 5_000]) {
      const res = await send(levels);
      expectRpcError(res, 400, -32600, null);
      expect(res.body.error).toMatchObject({
        message: 'Invalid Request: JSON nested deeper than 64 levels',
        data: { max_depth: 64 },
      });
    }
    const brackets = await request(server)
      .post('/mcp')
      .set(legacyRequest('ping').headers)
      .set('Authorization', 'Bearer ana-token')
      .send(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    expectRpcError(brackets, 400, -32600, null);
  });
});
