import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ListenStreams, McpArg, McpEvents, McpModule, McpResourceTemplate } from '@kobana/nest-mcp';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { ListenStream, modernRequest, SUB, type StreamMessage } from '@kobana/nest-mcp/testing';
import { connect } from 'node:net';

/**
 * Issue 21: a fan-out larger than `deliveryBatch` is written over several event-loop turns. What a
 * listener sees must not change: every event, in publish order, even when events arrive while an
 * earlier one is still being written; a stream closed meanwhile is skipped and forgotten; on
 * shutdown the events already heard are written before the end result, which stays last.
 */
@Injectable()
class Items {
  @McpResourceTemplate({ uriTemplate: 'test://items/{id}', name: 'item', bind: { id: 'id' } })
  item(@McpArg('id') id: string) {
    return { id };
  }
}

const URI = 'test://items/1';
const STREAMS = 5;

async function boot(): Promise<{ app: INestApplication; base: string }> {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 't', version: '1' },
        rateLimits: { general: false, writes: false, failedAuth: false },
        // One stream per turn: every fan-out here spans several turns.
        subscriptions: { resourceSubscriptions: true, maxStreamsPerPrincipal: 100, deliveryBatch: 1 },
      }),
    ],
    providers: [Items],
  })
  class AppModule {}
  const app = await NestFactory.create(AppModule, new StableExpressAdapter(), { logger: false, bodyParser: false });
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
}

async function openStreams(base: string, ids: (string | number)[]): Promise<ListenStream[]> {
  const streams = await Promise.all(
    ids.map((id) => ListenStream.open(base, 'none', { resourceSubscriptions: [URI] }, id)),
  );
  for (const s of streams) await s.next(() => true, 'the acknowledgement');
  return streams;
}

/** Publishes `count` updates in one turn (the embedded bus delivers synchronously): all queue behind the first. */
function publish(app: INestApplication, count: number): void {
  const events = app.get(McpEvents);
  for (let n = 1; n <= count; n++) void events.resourceUpdated(URI, { meta: { n } });
}

const updates = (s: ListenStream) => s.messages.filter((m) => m.method === 'notifications/resources/updated');
const marks = (s: ListenStream) => updates(s).map((m) => m.params._meta.n);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sequence = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

describe('listen fan-out over several turns', () => {
  let app: INestApplication;
  let base: string;
  beforeAll(async () => {
    ({ app, base } = await boot());
  });
  afterAll(() => app?.close());

  it('every stream hears every event once, in publish order, each with its own subscription id', async () => {
    const ids = [1, 1, 'a "quoted" id', 'ünï ✓', 7];
    const streams = await openStreams(base, ids);
    try {
      publish(app, 20);
      for (const s of streams) await s.next((m) => m.params?._meta?.n === 20, 'the last event');
      streams.forEach((s, i) => {
        expect(marks(s)).toEqual(sequence(20));
        for (const m of updates(s))
          expect(m).toEqual({
            jsonrpc: '2.0',
            method: 'notifications/resources/updated',
            params: { uri: URI, _meta: { n: m.params._meta.n, [SUB]: ids[i] } },
          } satisfies StreamMessage);
      });
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('a stream closed during a fan-out is skipped and forgotten; the others still hear everything in order', async () => {
    const streams = await openStreams(
      base,
      Array.from({ length: STREAMS }, (_, i) => `s${i}`),
    );
    const registry = app.get(ListenStreams);
    const before = registry.size;
    try {
      publish(app, 200);
      streams[2]!.close();
      for (const [i, s] of streams.entries()) {
        if (i !== 2) await s.next((m) => m.params?._meta?.n === 200, `the last event on stream ${i}`);
      }
      for (const [i, s] of streams.entries()) if (i !== 2) expect(marks(s)).toEqual(sequence(200));
      // What the closed one got before it went is a prefix of the sequence, never out of order.
      const got = marks(streams[2]!);
      expect(got).toEqual(sequence(got.length));
      for (let i = 0; i < 200 && registry.size >= before; i++) await new Promise((r) => setTimeout(r, 25));
      expect(registry.size).toBe(before - 1);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('the wire is plain HTTP/1.1 chunks, and an HTTP/1.0 client (no chunked framing) hears the same events', async () => {
    const r = modernRequest('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] } }, { id: 9 });
    const body = JSON.stringify(r.body);
    const rawListen = async (version: string) => {
      const socket = connect(Number(new URL(base).port), '127.0.0.1');
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      const head = Object.entries({
        ...r.headers,
        Host: 'localhost',
        'Content-Length': String(Buffer.byteLength(body)),
      })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST /mcp ${version}\r\n${head}\r\n${body}`);
      const until = async (what: string) => {
        for (let i = 0; i < 400 && !text.includes(what); i++) await new Promise((res) => setTimeout(res, 25));
        expect(text, what).toContain(what);
      };
      await until('notifications/subscriptions/acknowledged');
      return { socket, until, text: () => text };
    };
    const [v11, v10] = [await rawListen('HTTP/1.1'), await rawListen('HTTP/1.0')];
    try {
      publish(app, 3);
      for (const s of [v11, v10]) await s.until('"n":3');
      const sse = (n: number) =>
        `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"${URI}","_meta":{"n":${n},"${SUB}":9}}}\n\n`;
      // HTTP/1.1: each event is one chunk, its length in hex then the bytes.
      expect(v11.text()).toMatch(/^HTTP\/1\.1 200 .*\r\n[^]*transfer-encoding: chunked\r\n/i);
      for (const n of [1, 2, 3])
        expect(v11.text()).toContain(`\r\n${Buffer.byteLength(sse(n)).toString(16)}\r\n${sse(n)}\r\n`);
      // HTTP/1.0: no chunk framing at all; the body is the SSE messages back to back.
      expect(v10.text()).not.toMatch(/transfer-encoding/i);
      expect(v10.text().split('\r\n\r\n')[1]).toMatch(
        new RegExp(`\\n\\n${escape(sse(1))}${escape(sse(2))}${escape(sse(3))}$`),
      );
    } finally {
      v11.socket.destroy();
      v10.socket.destroy();
    }
  });

  it('shutdown during a fan-out: the events already heard, then the listen result last, on every stream', async () => {
    const streams = await openStreams(
      base,
      Array.from({ length: STREAMS }, (_, i) => `end${i}`),
    );
    publish(app, 50);
    // Only the first write of the first event has happened: the rest is queued when the app closes.
    await app.close();
    await Promise.all(streams.map((s) => s.ended));
    for (const [i, s] of streams.entries()) {
      expect(marks(s)).toEqual(sequence(50));
      expect(s.messages.at(-1)).toEqual({
        jsonrpc: '2.0',
        id: `end${i}`,
        result: { resultType: 'complete', _meta: { [SUB]: `end${i}` } },
      });
      expect(s.messages).toHaveLength(1 + 50 + 1);
    }
  });
});
