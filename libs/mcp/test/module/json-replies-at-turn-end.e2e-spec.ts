import 'reflect-metadata';
import { get } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  BadRequestException,
  Controller,
  Get,
  Header,
  HttpCode,
  type INestApplication,
  Module,
  Post,
  Req,
  StreamableFile,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type FailedReplyBody, StableExpressAdapter } from '@kobana/nest-mcp/express';
import type { Request } from 'express';

/**
 * `StableExpressAdapter` with `jsonRepliesAtTurnEnd` sends a route handler's JSON at the end of the
 * event loop's turn (src/http/turn-end-reply.ts): what a client receives must be what the adapter
 * without it (Express's res.json) sends, byte for byte but the Date.
 */
const atTurnEnd = (failedReplyBody?: FailedReplyBody) =>
  new StableExpressAdapter(undefined, { jsonRepliesAtTurnEnd: true, failedReplyBody });

/** [headersSent, writableEnded] of each `GET /turn` response, read just before the turn's end. */
const seenAtTurnEnd: boolean[][] = [];

@Controller()
class SampleController {
  @Get('object')
  object() {
    return { data: { text: 'olá — ✓', n: 1 } };
  }

  @Get('array')
  array() {
    return [1, 'two', { three: 3 }];
  }

  @Post('created')
  @HttpCode(201)
  created() {
    return { data: { id: 'abc' } };
  }

  @Get('text')
  text() {
    return 'plain words';
  }

  @Get('nothing')
  nothing() {
    return null;
  }

  @Get('typed')
  @Header('Content-Type', 'text/plain')
  typed() {
    return { data: 'typed' };
  }

  @Get('refused')
  refused() {
    // Nest's exception filter replies through the adapter too.
    throw new BadRequestException('not like this');
  }

  @Get('error-body')
  errorBody() {
    return new Error('an Error as a body');
  }

  @Get('prefinish')
  prefinish(@Req() req: Request) {
    // Node emits 'prefinish' inside end(), once the answer's bytes are written.
    req.res!.once('prefinish', () => {
      throw new Error('a prefinish listener that fails');
    });
    return { data: 'prefinish' };
  }

  @Get('escaped')
  escaped() {
    return { html: '<b>&</b>', n: 2 };
  }

  @Get('bigint')
  bigint() {
    return { n: 1n };
  }

  @Get('file')
  file() {
    return new StreamableFile(Buffer.from('bytes'));
  }

  @Get('undefined-json')
  undefinedJson() {
    return { toJSON: () => undefined };
  }

  @Post('no-content')
  @HttpCode(204)
  noContent() {
    return { data: 'dropped by a 204' };
  }

  @Get('turn')
  turn(@Req() req: Request) {
    // Queued before the adapter's own send: what the response is once Nest's reply has returned.
    setImmediate(() => seenAtTurnEnd.push([req.res!.headersSent, req.res!.writableEnded]));
    return { data: 'turn' };
  }

  @Get('traced')
  @Header('X-Trace', 'trace-7')
  traced() {
    return { data: 'traced' };
  }

  @Get('echo/:n')
  echo(@Req() req: Request) {
    return { n: req.params.n };
  }

  @Get('gone')
  gone(@Req() req: Request) {
    // The client's connection is gone before the answer is sent.
    req.socket.destroy();
    return { data: 'nobody reads this' };
  }
}

@Module({ controllers: [SampleController] })
class SampleModule {}

async function startApp(adapter: StableExpressAdapter, settings: Record<string, unknown> = {}) {
  const app = await NestFactory.create(SampleModule, adapter, { logger: false });
  for (const [name, value] of Object.entries(settings)) adapter.getInstance().set(name, value);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, port };
}

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function fetchSeen(url: string, init?: RequestInit): Promise<Seen> {
  const res = await fetch(url, init);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, headers, body: await res.text() };
}

function httpGet(url: string, headers: Record<string, string>): Promise<Seen> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const { date: _date, ...rest } = res.headers;
        resolve({ status: res.statusCode!, headers: rest as Record<string, string>, body });
      });
    }).on('error', reject);
  });
}

/**
 * Raw HTTP/1.1 on one connection, one request after the other's answer: each answer's status line
 * and body; fails if the server closes the connection before the last answer.
 */
function oneAfterAnother(port: number, paths: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const answers: string[] = [];
    let text = '';
    const ask = () => socket.write(`GET ${paths[answers.length]} HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.setEncoding('utf8');
    socket.on('connect', ask);
    socket.on('data', (chunk: string) => {
      text += chunk;
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (head < 0 || length === undefined || text.length < head + 4 + Number(length)) return;
      answers.push(`${text.slice(0, text.indexOf('\r\n'))} ${text.slice(head + 4, head + 4 + Number(length))}`);
      text = text.slice(head + 4 + Number(length));
      if (answers.length === paths.length) {
        socket.destroy();
        resolve(answers);
      } else ask();
    });
    socket.on('close', () => reject(new Error(`the connection closed after ${answers.length} answers`)));
    socket.on('error', reject);
  });
}

/** Raw HTTP/1.1 on one connection: every request written at once (pipelined), the bytes read until `expected` answers end. */
function pipelined(port: number, paths: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if ((text.match(/HTTP\/1\.1 /g) ?? []).length === paths.length && text.endsWith('}')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
  });
}

describe('StableExpressAdapter with jsonRepliesAtTurnEnd', () => {
  let apps: INestApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
  });

  async function one() {
    const deferred = await startApp(atTurnEnd());
    apps.push(deferred.app);
    return deferred;
  }

  async function both(settings?: Record<string, unknown>) {
    const deferred = await startApp(atTurnEnd(), settings);
    const plain = await startApp(new StableExpressAdapter(), settings);
    apps.push(deferred.app, plain.app);
    return { deferred, plain };
  }

  it.each([
    ['GET', '/object'],
    ['GET', '/array'],
    ['POST', '/created'],
    ['GET', '/text'],
    ['GET', '/nothing'],
    ['GET', '/typed'],
    ['GET', '/file'],
    ['HEAD', '/object'],
    ['GET', '/bigint'],
    ['GET', '/undefined-json'],
    ['POST', '/no-content'],
    ['GET', '/refused'],
    ['GET', '/no-such-route'],
    ['GET', '/error-body'],
  ])('%s %s answers what the module adapter answers (status, headers, body)', async (method, path) => {
    const { deferred, plain } = await both();
    const mine = await fetchSeen(deferred.url + path, { method });
    const theirs = await fetchSeen(plain.url + path, { method });
    expect(mine).toEqual(theirs);
    if (path === '/object' && method === 'GET') {
      expect(mine.status).toBe(200);
      expect(mine.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(mine.headers['etag']).toMatch(/^W\/"/);
      expect(Number(mine.headers['content-length'])).toBe(Buffer.byteLength(mine.body));
      expect(JSON.parse(mine.body)).toEqual({ data: { text: 'olá — ✓', n: 1 } });
    }
    if (path === '/bigint') expect(mine.status).toBe(500);
  });

  it('sends the answer at the end of the turn: nothing of it is sent when the handler has returned', async () => {
    const { deferred, plain } = await both();
    seenAtTurnEnd.length = 0;
    expect((await fetchSeen(`${deferred.url}/turn`)).body).toBe('{"data":"turn"}');
    expect((await fetchSeen(`${plain.url}/turn`)).body).toBe('{"data":"turn"}');
    // The module's adapter has sent its answer by then; this one has not begun to.
    expect(seenAtTurnEnd).toEqual([
      [false, false],
      [true, true],
    ]);
  });

  it('answers a request that closes its connection as the module adapter does', async () => {
    const { deferred, plain } = await both();
    const close = { Connection: 'close' };
    const mine = await httpGet(`${deferred.url}/object`, close);
    expect(mine.headers['connection']).toBe('close');
    expect(mine).toEqual(await httpGet(`${plain.url}/object`, close));
  });

  it('keeps the ETag and its 304 for a client that has the answer already', async () => {
    const { deferred, plain } = await both();
    const first = await fetchSeen(`${deferred.url}/object`);
    // Node's http, not fetch: fetch turns a conditional request into a revalidation (Cache-Control).
    const conditional = { 'If-None-Match': first.headers['etag']! };
    const again = await httpGet(`${deferred.url}/object`, conditional);
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again).toEqual(await httpGet(`${plain.url}/object`, conditional));
  });

  it("follows the app's JSON settings as Express does (they take Express's own path)", async () => {
    const { deferred, plain } = await both({ 'json spaces': 2 });
    const mine = await fetchSeen(`${deferred.url}/object`);
    expect(mine).toEqual(await fetchSeen(`${plain.url}/object`));
    expect(mine.body).toContain('\n  "data"');
  });

  it.each([
    ['json escape', true, '{"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e","n":2}'],
    ['json replacer', (key: string, value: unknown) => (key === 'n' ? undefined : value), '{"html":"<b>&</b>"}'],
  ])("follows the app's %s as Express does", async (setting, value, body) => {
    const { deferred, plain } = await both({ [setting]: value });
    const mine = await fetchSeen(`${deferred.url}/escaped`);
    expect(mine).toEqual(await fetchSeen(`${plain.url}/escaped`));
    expect(mine.body).toBe(body);
  });

  it("keeps an answer whose 'prefinish' listener throws once it is written, as the adapter without it does, and goes on serving", async () => {
    const { deferred, plain } = await both();
    const mine = await fetchSeen(`${deferred.url}/prefinish`);
    expect(mine.status).toBe(200);
    expect(mine.body).toBe('{"data":"prefinish"}');
    expect(mine).toEqual(await fetchSeen(`${plain.url}/prefinish`));
    // The connection stays open for the next request, as after any answer.
    expect(await oneAfterAnother(deferred.port, ['/prefinish', '/echo/2'])).toEqual([
      'HTTP/1.1 200 OK {"data":"prefinish"}',
      'HTTP/1.1 200 OK {"n":"2"}',
    ]);
  });

  it('answers pipelined requests on one connection in order, each with its own body', async () => {
    const deferred = await one();
    const paths = ['/echo/1', '/echo/2', '/echo/3', '/echo/4'];
    const text = await pipelined(deferred.port, paths);
    const bodies = [...text.matchAll(/\{"n":"(\d)"\}/g)].map((m) => m[1]);
    expect(bodies).toEqual(['1', '2', '3', '4']);
  });

  it('answers 40 connections at once, each its own body', async () => {
    const deferred = await one();
    const seen = await Promise.all(Array.from({ length: 40 }, (_, i) => fetchSeen(`${deferred.url}/echo/${i % 10}`)));
    expect(seen.map((s) => JSON.parse(s.body).n)).toEqual(Array.from({ length: 40 }, (_, i) => String(i % 10)));
  });

  it('gives no answer to a connection closed before the turn ends, and goes on serving', async () => {
    // Express's etag function runs inside res.send: counted, it tells whether an answer was sent.
    let sends = 0;
    const deferred = await startApp(atTurnEnd(), { etag: () => `"${++sends}"` });
    apps.push(deferred.app);
    await expect(fetch(`${deferred.url}/gone`)).rejects.toThrow();
    const next = await fetchSeen(`${deferred.url}/object`);
    expect(next.status).toBe(200);
    expect(sends).toBe(1);
  });

  /** An `etag` function that throws on the first send only: Express's send fails once, then works. */
  function failingOnce() {
    let calls = 0;
    return () => {
      if (++calls === 1) throw new Error('an etag function that fails');
      return '"ok"';
    };
  }

  it("answers Nest's 500 when Express's send fails at the end of the turn, and goes on serving", async () => {
    const deferred = await startApp(atTurnEnd(), { etag: failingOnce() });
    apps.push(deferred.app);
    const failed = await fetchSeen(`${deferred.url}/object`);
    expect(failed.status).toBe(500);
    expect(failed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(failed.headers['etag']).toBeUndefined();
    expect(Number(failed.headers['content-length'])).toBe(Buffer.byteLength(failed.body));
    expect(JSON.parse(failed.body)).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect((await fetchSeen(`${deferred.url}/object`)).status).toBe(200);
  });

  it("answers the app's failedReplyBody then, made from the response", async () => {
    const deferred = await startApp(
      atTurnEnd((response) => ({ error: 'internal', id: response.getHeader('X-Trace') })),
      { etag: failingOnce() },
    );
    apps.push(deferred.app);
    const failed = await fetchSeen(`${deferred.url}/traced`);
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ error: 'internal', id: 'trace-7' });
    expect(failed.headers['x-trace']).toBe('trace-7');
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('a body that cannot be made');
      },
    ],
    ['gives nothing JSON can hold', () => undefined as unknown as object],
  ])("answers Nest's 500 when the app's failedReplyBody %s, and goes on serving", async (_, failedReplyBody) => {
    const deferred = await startApp(atTurnEnd(failedReplyBody), { etag: failingOnce() });
    apps.push(deferred.app);
    const failed = await fetchSeen(`${deferred.url}/object`);
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect((await fetchSeen(`${deferred.url}/object`)).status).toBe(200);
  });

  it('is off unless asked for: the adapter alone sends a JSON reply within the turn', async () => {
    const plain = await startApp(new StableExpressAdapter(undefined, {}));
    apps.push(plain.app);
    seenAtTurnEnd.length = 0;
    expect((await fetchSeen(`${plain.url}/turn`)).body).toBe('{"data":"turn"}');
    expect(seenAtTurnEnd).toEqual([[true, true]]);
  });
});
