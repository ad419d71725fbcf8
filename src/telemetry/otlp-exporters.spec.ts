import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { otlpSpanProcessor } from './otlp-exporters.js';
import { readTelemetryConfig } from './telemetry-config.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('OTLP protocol (OTEL_EXPORTER_OTLP_PROTOCOL)', () => {
  it('is protobuf for both signals by default, as the specification says', () => {
    expect(readTelemetryConfig(ENDPOINT).protocol).toEqual({ traces: 'http/protobuf', metrics: 'http/protobuf' });
  });

  it('is JSON when asked, for both signals or one', () => {
    expect(readTelemetryConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol).toEqual({
      traces: 'http/json',
      metrics: 'http/json',
    });
    const one = readTelemetryConfig({
      ...ENDPOINT,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    });
    expect(one.protocol).toEqual({ traces: 'http/protobuf', metrics: 'http/json' });
  });

  it('refuses a protocol Kadu does not speak when OTLP is exported, naming the variable', () => {
    expect(readTelemetryConfig({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).problems).toEqual([
      "OTEL_EXPORTER_OTLP_PROTOCOL: unsupported protocol 'grpc' (use http/protobuf or http/json)",
      "OTEL_EXPORTER_OTLP_PROTOCOL: unsupported protocol 'grpc' (use http/protobuf or http/json)",
    ]);
    expect(
      readTelemetryConfig({
        ...ENDPOINT,
        OTEL_METRICS_EXPORTER: 'prometheus',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc',
      }).problems,
    ).toEqual([]);
  });
});

describe('the OTLP trace exporter', () => {
  let server: Server;
  const posts: { headers: IncomingHttpHeaders; body: Buffer }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'Content-Type': req.headers['content-type'] }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', `http://127.0.0.1:${(server.address() as { port: number }).port}`);
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Exports one span with the exporter of `protocol`; what the collector received. */
  async function exportOne(protocol: 'http/protobuf' | 'http/json') {
    posts.length = 0;
    const provider = new BasicTracerProvider({ spanProcessors: [otlpSpanProcessor(protocol)] });
    const span = provider
      .getTracer('test')
      .startSpan('tools/call bench_echo', { attributes: { 'gen_ai.tool.name': 'bench_echo' } });
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    expect(posts).toHaveLength(1);
    return { post: posts[0]!, traceId: span.spanContext().traceId };
  }

  it('posts protobuf to /v1/traces by default: the span, its attributes and its trace id as bytes', async () => {
    const { post, traceId } = await exportOne('http/protobuf');
    expect(post.headers['content-type']).toBe('application/x-protobuf');
    expect(post.body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(post.body.includes(Buffer.from('tools/call bench_echo'))).toBe(true);
    expect(post.body.includes(Buffer.from('gen_ai.tool.name'))).toBe(true);
  });

  it('posts, in protobuf, the bytes the SDK serializer writes for the same batch', async () => {
    posts.length = 0;
    const seen = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [otlpSpanProcessor('http/protobuf'), new SimpleSpanProcessor(seen)],
    });
    const tracer = provider.getTracer('@kobana/nest-mcp', '1.0.0');
    for (let i = 0; i < 600; i++) {
      const span = tracer.startSpan(`tools/call echo ${i}`, {
        kind: SpanKind.SERVER,
        attributes: { 'jsonrpc.request.id': String(i), 'client.port': 40_000 + i, 'mcp.method.name': 'tools/call' },
      });
      if (i % 3 === 0) span.addEvent('retry', { attempt: i });
      if (i % 5 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'refusé' });
      span.end();
    }
    provider.getTracer('kadu.http').startSpan('GET /api/v1/bench/echo').end();
    await provider.forceFlush();
    const spans = seen.getFinishedSpans(); // read before the shutdown empties it
    await provider.shutdown();
    // The batch processor's batches of 512 (OTEL_BSP_MAX_EXPORT_BATCH_SIZE), in the order the spans ended.
    expect(posts.map((p) => p.headers['content-type'])).toEqual(['application/x-protobuf', 'application/x-protobuf']);
    expect(spans).toHaveLength(601);
    expect(posts[0]!.body.equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans.slice(0, 512))!))).toBe(
      true,
    );
    expect(posts[1]!.body.equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans.slice(512))!))).toBe(true);
  });

  it('posts nothing for spans not sampled', async () => {
    posts.length = 0;
    const provider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [otlpSpanProcessor('http/protobuf')],
    });
    provider.getTracer('test').startSpan('tools/call bench_echo').end();
    await provider.forceFlush();
    await provider.shutdown();
    expect(posts).toEqual([]);
  });

  it('posts the same span as JSON with http/json', async () => {
    const { post, traceId } = await exportOne('http/json');
    expect(post.headers['content-type']).toBe('application/json');
    const spans = JSON.parse(post.body.toString()).resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toEqual([expect.objectContaining({ name: 'tools/call bench_echo', traceId })]);
  });
});
