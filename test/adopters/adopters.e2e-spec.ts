import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { BODY_TOO_LARGE_ANSWER, rawPost } from '@kobana/nest-mcp/testing';

/**
 * Issue 18: apps that adopt the module the way anyone would — `npm install` of the tarball that
 * `npm pack` makes in this run, the README's quick start pasted as app.module.ts, Nest's default
 * `main.ts` — a CommonJS app on Nest 10 (Express 4), one on Nest 11 (Express 5) and an ES-module
 * app on Nest 12 (Express 5). They are installed in a scratch folder outside the repository
 * (removed afterwards), so nothing can resolve from the repository's own node_modules, and driven
 * by the official MCP clients.
 *
 * Issue 28: in each of the three installs (shared, so no install of its own) the notes app of
 * libs/mcp/examples/api-key-notes — its own API-key guard, `req.user = { id, email, roles }`, a
 * `@CurrentUser()` decorator, services that take the owner's id, served on the module's
 * `StableExpressAdapter` (so Express 4 and 5 build their objects through it) — is built twice, as CommonJS and
 * as ES modules, and driven the same way: Nest 10, 11 and 12 × CommonJS and ESM.
 */
const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const ADOPTERS = ['cjs-nest10', 'cjs-nest11', 'esm-nest12'] as const;
const NOTES_BUILDS = ADOPTERS.flatMap((install) => (['cjs', 'esm'] as const).map((kind) => `${install}/notes-${kind}`));
const QUICK_START_MARK = '<!-- quick-start: src/app.module.ts -->';

// npm's own variables (set by `npm test`) would point the installs at this repository.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

let scratch: string;
let packedFiles: string[] = [];
const apps = new Map<string, { child: ChildProcess; url: string; output: () => string }>();

/** The README's quick start, exactly as written there. */
async function quickStart(): Promise<string> {
  const readme = await readFile(join(root, 'libs/mcp/README.md'), 'utf8');
  const after = readme.slice(readme.indexOf(QUICK_START_MARK) + QUICK_START_MARK.length);
  const block = /```ts\n([\s\S]*?)```/.exec(after);
  if (!readme.includes(QUICK_START_MARK) || !block)
    throw new Error(`libs/mcp/README.md has no ${QUICK_START_MARK} followed by a ts block`);
  return block[1]!;
}

async function install(name: string, appModule: string): Promise<void> {
  const dir = join(scratch, name);
  await cp(join(root, 'test/adopters', name), dir, {
    recursive: true,
    filter: (src) => !/node_modules|dist/.test(src.slice(root.length)),
  });
  await writeFile(join(dir, 'src/app.module.ts'), appModule);
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], { cwd: dir, env });
  // The app is compiled by the repository's TypeScript against the types the app installed.
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, env });
  await Promise.all((['cjs', 'esm'] as const).map((kind) => buildNotes(name, kind)));
}

/** The notes app, compiled as `kind` inside an install: a folder of its own whose node_modules are the install's. */
async function buildNotes(install: string, kind: 'cjs' | 'esm'): Promise<void> {
  const dir = join(scratch, install, `notes-${kind}`);
  await cp(join(root, 'test/adopters/notes-app/builds', kind), dir, { recursive: true });
  await cp(join(root, 'libs/mcp/examples/api-key-notes/src'), join(dir, 'src'), { recursive: true });
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, env });
}

function start(name: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: join(scratch, name),
    // The notes example listens on PORT (0: any free port); the quick start's main.ts always on 0.
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const port = /listening on (\d+)/.exec(output)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}/mcp`, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}) before listening:\n${output}`)));
  });
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kobana-adopters-'));
  // The build ran before the tests (pretest); packing again would only rebuild the same files.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: join(root, 'libs/mcp'),
    env,
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed!.files.map((f) => f.path);
  await rename(join(scratch, packed!.filename), join(scratch, 'kobana-nest-mcp.tgz'));
  const appModule = await quickStart();
  await Promise.all(ADOPTERS.map((name) => install(name, appModule)));
  for (const name of [...ADOPTERS, ...NOTES_BUILDS]) apps.set(name, await start(name));
}, 300_000);

afterAll(async () => {
  for (const { child } of apps.values()) child.kill();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds both builds with their declarations, the README and no tests, fixtures or sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/cjs/package.json',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/esm/testing/index.js',
      ]),
    );
    expect(
      packedFiles.filter((path) => /spec|fixture|(^|\/)test\/|\.ts$(?<!\.d\.ts)|tsconfig|scripts\//.test(path)),
    ).toEqual([]);
  });

  it.each([
    [
      'cjs-nest10',
      `const m = require('@kobana/nest-mcp'); const t = require('@kobana/nest-mcp/testing'); console.log(typeof m.McpModule, typeof t.modernRequest)`,
      'commonjs',
    ],
    [
      'cjs-nest11',
      `const m = require('@kobana/nest-mcp'); const t = require('@kobana/nest-mcp/testing'); console.log(typeof m.McpModule, typeof t.modernRequest)`,
      'commonjs',
    ],
    [
      'esm-nest12',
      `const m = await import('@kobana/nest-mcp'); const t = await import('@kobana/nest-mcp/testing'); console.log(typeof m.McpModule, typeof t.modernRequest)`,
      'module',
    ],
  ])('%s loads the package and its testing helpers by name', async (name, code, type) => {
    const { stdout } = await run(process.execPath, ['--input-type', type, '-e', code], {
      cwd: join(scratch, name),
      env,
    });
    expect(stdout.trim()).toBe('function function');
  });
});

describe.each(ADOPTERS)('%s, from the README quick start', (name) => {
  const endpoint = () => new URL(apps.get(name)!.url);
  const text = (result: { content: unknown }) => JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;

  it('@modelcontextprotocol/client 2.4.0 (2026-07-28) lists, calls, and runs the destructive tool only once the person confirms in the chat', async () => {
    const asked: string[] = [];
    let answer: 'accept' | 'decline' = 'decline';
    const client = new ClientV2(
      { name: 'adopter-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push((req.params as { message: string }).message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    await client.connect(new TransportV2(endpoint()));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.annotations?.destructiveHint]).sort()).toEqual([
        ['notes_delete', false, true],
        ['notes_list', true, false],
      ]);
      expect(tools.find((t) => t.name === 'notes_delete')!.inputSchema).toMatchObject({
        properties: { id: { type: 'string' } },
        required: ['id'],
      });
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual([
        { id: '1', text: 'Buy milk' },
        { id: '2', text: 'Call Ana' },
      ]);

      const declined = await client.callTool({ name: 'notes_delete', arguments: { id: '2' } });
      expect(declined.isError).toBe(true);
      expect(text(declined)).toMatchObject({ error: { code: 'confirmation_declined' } });
      expect(asked).toHaveLength(1);
      // The tool's title where the person reads, not its internal name.
      expect(asked[0]).toContain('Delete a note with {"id":"2"}');
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toHaveLength(2);

      answer = 'accept';
      const confirmed = await client.callTool({ name: 'notes_delete', arguments: { id: '2' } });
      expect(confirmed.isError).toBeFalsy();
      expect(text(confirmed)).toEqual({ deleted: true });
      expect(asked).toHaveLength(2);
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual([
        { id: '1', text: 'Buy milk' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/sdk 1.32.2 (2025 era) lists, calls, and runs the destructive tool once the person chose Continue on the approval page', async () => {
    const client = new ClientV1({ name: 'adopter-test', version: '1.0.0' });
    const transport = new TransportV1(endpoint());
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['notes_delete', 'notes_list']);
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toContainEqual({
        id: '1',
        text: 'Buy milk',
      });

      const pending = await client.callTool({ name: 'notes_delete', arguments: { id: '1' } });
      expect(pending.isError).toBe(true);
      const { error } = text(pending) as { error: { code: string; approval_url: string } };
      expect(error.code).toBe('approval_required');
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toContainEqual({
        id: '1',
        text: 'Buy milk',
      });

      const link = new URL(error.approval_url);
      expect(link.origin).toBe(endpoint().origin);
      const page = await request(link.origin).get(link.pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<h1>Delete a note?</h1>');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
      expect(csrf).toBeDefined();
      const decided = await request(link.origin).post(link.pathname).type('form').send({ csrf, decision: 'approve' });
      expect(decided.status).toBe(200);

      const run = await client.callTool({ name: 'notes_delete', arguments: { id: '1' } });
      expect(run.isError).toBeFalsy();
      expect(text(run)).toEqual({ deleted: true });
    } finally {
      await client.close();
    }
  });

  it("answers broken JSON with JSON-RPC -32700 although the app keeps Nest's default body parser", async () => {
    const res = await request(endpoint().origin)
      .post('/mcp')
      .set({
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      })
      .send('{"jsonrpc":"2.0","id":1,');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) });
  });

  it("cuts a chunked body over 1 MiB off with the JSON-RPC 413 body although the app keeps Nest's default body parser", async () => {
    const res = await rawPost(
      apps.get(name)!.url,
      { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      async (write, end) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.length) {
          if (!(await write(chunk))) return;
        }
        end();
      },
    );
    expect(res.status).toBe(413);
    expect(res.body).toBe(BODY_TOO_LARGE_ANSWER);
  });
});

describe('the notes app adopts with its services and controllers unchanged', () => {
  /** The app as adopted is the package's example; test/adopters/notes-app/plain holds its files before adopting. */
  const ADOPTED = '../../../libs/mcp/examples/api-key-notes/src';
  const read = (folder: string, file: string) => readFile(join(root, 'test/adopters/notes-app', folder, file), 'utf8');
  /** The source without what adopting added: the module's decorators and the imports they need. */
  const withoutAnnotations = (source: string): string => {
    let out = source.replace(/^import .* from '(@kobana\/nest-mcp|\.\/current-user\.decorator\.js)';\n/gm, '');
    for (let at = out.search(/@(Mcp\w+|CurrentUser)\(/); at >= 0; at = out.search(/@(Mcp\w+|CurrentUser)\(/)) {
      let depth = 0;
      let end = out.indexOf('(', at);
      do {
        if (out[end] === '(') depth++;
        else if (out[end] === ')') depth--;
        end++;
      } while (depth > 0);
      out = out.slice(0, at) + out.slice(end);
    }
    return out.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();
  };
  /** Lines of `after` that are not in `before`, and lines of `before` gone from `after` (longest common subsequence). */
  const lineDiff = (before: string[], after: string[]) => {
    const lcs = before.map(() => new Array<number>(after.length + 1).fill(0));
    lcs.push(new Array<number>(after.length + 1).fill(0));
    for (let i = before.length - 1; i >= 0; i--)
      for (let j = after.length - 1; j >= 0; j--)
        lcs[i]![j] = before[i] === after[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    const common = lcs[0]![0]!;
    return { added: after.length - common, removed: before.length - common };
  };

  it('the controller is the plain copy byte for byte', async () => {
    expect(await read(ADOPTED, 'notes.controller.ts')).toBe(await read('plain', 'notes.controller.ts'));
  });

  it('the service differs from the plain copy by annotations only: nothing else changed', async () => {
    const plain = await read('plain', 'notes.service.ts');
    const adopted = await read(ADOPTED, 'notes.service.ts');
    expect(withoutAnnotations(adopted)).toBe(withoutAnnotations(plain));
    // 16 new lines (2 imports, 14 of the three @McpTool blocks) and 3 signature lines that gained a
    // parameter decorator in place (list, create, delete): no other line changed, none removed.
    expect(lineDiff(plain.split('\n'), adopted.split('\n'))).toEqual({ added: 19, removed: 3 });
  });
});

describe.each(NOTES_BUILDS)('the notes app (own API-key guard, @CurrentUser()), %s', (name) => {
  const endpoint = () => new URL(apps.get(name)!.url);
  const text = (result: { content: unknown }) => JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;
  const headers = (key: string) => ({ headers: { 'X-Api-Key': key } });

  it("2026-07-28 (official client 2.4.0): each user sees only their notes; a delete runs once confirmed, and not on another user's note", async () => {
    const clients = new Map<string, ClientV2>();
    for (const key of ['ana-key', 'bob-key']) {
      const client = new ClientV2(
        { name: 'adopter-test', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
      );
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
      await client.connect(new TransportV2(endpoint(), { requestInit: headers(key) }));
      clients.set(key, client);
    }
    const ana = clients.get('ana-key')!;
    const bob = clients.get('bob-key')!;
    try {
      expect(ana.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const created = text(await ana.callTool({ name: 'notes_create', arguments: { text: "Ana's secret" } }));
      expect(created).toMatchObject({ ownerId: 'ana', text: "Ana's secret" });
      const id = (created as { id: string }).id;
      expect(text(await bob.callTool({ name: 'notes_list', arguments: {} }))).toEqual([]);
      expect(text(await ana.callTool({ name: 'notes_list', arguments: {} }))).toEqual([created]);

      const refused = await bob.callTool({ name: 'notes_delete', arguments: { id } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toEqual({ error: 'note_not_found' });
      const invalid = await ana.callTool({ name: 'notes_create', arguments: { text: '' } });
      expect(invalid.isError).toBe(true);
      const rest = await request(endpoint().origin).post('/notes').set('X-Api-Key', 'ana-key').send({ text: '' });
      expect(rest.status).toBe(400);
      expect(text(invalid)).toEqual(rest.body);

      expect(text(await ana.callTool({ name: 'notes_delete', arguments: { id } }))).toEqual({ deleted: true });
      expect(text(await ana.callTool({ name: 'notes_list', arguments: {} }))).toEqual([]);
    } finally {
      await Promise.all([...clients.values()].map((c) => c.close()));
    }
  });

  it('2025 era (official SDK 1.32.2) and REST see the same notes, per user', async () => {
    const client = new ClientV1({ name: 'adopter-test', version: '1.0.0' });
    const transport = new TransportV1(endpoint(), { requestInit: headers('bob-key') });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      const created = text(await client.callTool({ name: 'notes_create', arguments: { text: 'Call Ana' } }));
      expect(created).toMatchObject({ ownerId: 'bob', text: 'Call Ana' });
      const rest = await request(endpoint().origin).get('/notes').set('X-Api-Key', 'bob-key');
      expect(rest.body).toEqual([created]);
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual(rest.body);
      const other = await request(endpoint().origin).get('/notes').set('X-Api-Key', 'ana-key');
      expect(other.body).not.toContainEqual(created);
      const pending = await client.callTool({
        name: 'notes_delete',
        arguments: { id: (created as { id: string }).id },
      });
      expect(text(pending)).toMatchObject({ error: { code: 'approval_required' } });
    } finally {
      await client.close();
    }
  });

  it("its REST replies, sent at the end of the turn (jsonRepliesAtTurnEnd), keep Express's headers, ETag, 304 and HEAD", async () => {
    const origin = endpoint().origin;
    const created = await request(origin).post('/notes').set('X-Api-Key', 'ana-key').send({ text: 'ETag me' });
    expect(created.status).toBe(201);
    const list = await request(origin).get('/notes').set('X-Api-Key', 'ana-key');
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.headers['x-powered-by']).toBe('Express');
    expect(Number(list.headers['content-length'])).toBe(Buffer.byteLength(list.text));
    expect(list.body).toContainEqual(created.body);
    const etag = list.headers['etag'] as string;
    expect(etag).toMatch(/^W\/"/);
    const again = await request(origin).get('/notes').set({ 'X-Api-Key': 'ana-key', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const head = await request(origin).head('/notes').set('X-Api-Key', 'ana-key');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(list.headers['content-length']);
    expect(head.text).toBeUndefined();
  });

  it("a request without a key is the guard's 401, before any MCP method", async () => {
    const res = await request(endpoint().origin)
      .post('/mcp')
      .set({
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'invalid_api_key' });
  });
});
