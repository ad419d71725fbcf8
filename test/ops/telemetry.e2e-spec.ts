import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { issueDevToken } from '../../src/auth/dev-token.js';
import { createKaduApp } from '../../src/bootstrap.js';
import { type AppConfig, loadConfig } from '../../src/config/app-config.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { seedEmbeddedDatabase } from '../support/kadu-app.js';
import { contextManagerFor } from '../../src/telemetry/promise-hook-context-manager.js';
import { DATABASE, type Database } from '../../src/db/database.js';
import { newId } from '../../src/common/ids.js';

/**
 * The MCP semantic conventions as an exporter sees them: the SDK is registered in this process
 * with in-memory exporters (as `main.ts` registers the real ones), then the Kadu app is built.
 */
const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const HEADER_SPAN = 'a3ce929d0e0e4736';
const traceparent = (spanId: string) => `00-${TRACE_ID}-${spanId}-01`;

let app: INestApplication;
let config: AppConfig;
let dataDir: string;
let mcpToken: string;
let apiToken: string;

beforeAll(async () => {
  // The context manager main.ts registers on this Node (promise-hook-context-manager.ts).
  tracerProvider.register({ contextManager: contextManagerFor('auto') });
  metrics.setGlobalMeterProvider(meterProvider);
  dataDir = mkdtempSync(join(tmpdir(), 'kadu-otel-'));
  seedEmbeddedDatabase(dataDir);
  config = loadConfig({
    PORT: '3000',
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    KADU_RATE_GENERAL: '100000/60',
    KADU_RATE_WRITES: '5/60',
    KADU_RATE_FAILED_AUTH: '100000/60',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  app = await createKaduApp(config, ['error'], [], { requests: true });
  await app.init();
  mcpToken = await issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin' });
  // Another member: the rate-limit test spends ana's write budget (one budget for both doors).
  apiToken = await issueDevToken(config, { org: 'acme', user: 'rui@acme.test', role: 'admin', audience: 'api' });
});

afterAll(async () => {
  await app?.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
  propagation.disable();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => spans.reset());

const mcp = (r: { headers: Record<string, string>; body: object }, headers: Record<string, string> = {}) =>
  request(app.getHttpServer())
    .post('/mcp')
    .set(r.headers)
    .set(headers)
    .set('Authorization', `Bearer ${mcpToken}`)
    .send(r.body);

/** The one MCP server span of the last request (the app's own spans are its children). */
function serverSpan(): ReadableSpan {
  const server = spans
    .getFinishedSpans()
    .filter((s) => s.kind === SpanKind.SERVER && s.instrumentationScope.name === '@kobana/nest-mcp');
  expect(server).toHaveLength(1);
  return server[0]!;
}

async function durationPoints(): Promise<DataPoint<Histogram>[]> {
  metricExporter.reset();
  await reader.forceFlush();
  const metric = metricExporter
    .getMetrics()
    .flatMap((r) => r.scopeMetrics)
    .flatMap((s) => s.metrics)
    .find((m) => m.descriptor.name === 'mcp.server.operation.duration');
  expect(metric?.descriptor.unit).toBe('s');
  return (metric?.dataPoints ?? []) as DataPoint<Histogram>[];
}

describe('MCP spans and metrics (OpenTelemetry semantic conventions for MCP)', () => {
  it('a 2026 tools/call continues the traceparent of params._meta, names the tool, and parents the database spans', async () => {
    const r = modernRequest(
      'tools/call',
      { name: 'kadu_tasks_list', arguments: {}, _meta: { traceparent: traceparent(CLIENT_SPAN) } },
      { id: 'call-1' },
    );
    const res = await mcp(r, { traceparent: traceparent(HEADER_SPAN) });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeUndefined();

    const span = serverSpan();
    expect(span.name).toBe('tools/call kadu_tasks_list');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    // mcp.md: the transport's (HTTP) context is linked, not the parent.
    expect(span.links.map((l) => l.context.spanId)).toEqual([HEADER_SPAN]);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'kadu_tasks_list',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': 'call-1',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'http.response.status_code': 200,
    });
    expect(span.attributes['error.type']).toBeUndefined();
    // Every attribute the span carries, no more: those made at its creation and at its end.
    expect(Object.keys(span.attributes).sort()).toEqual([
      'client.address',
      'client.port',
      'gen_ai.operation.name',
      'gen_ai.tool.name',
      'http.response.status_code',
      'jsonrpc.request.id',
      'mcp.method.name',
      'mcp.protocol.version',
      'network.protocol.name',
      'network.protocol.version',
      'network.transport',
    ]);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);

    const db = spans.getFinishedSpans().filter((s) => s.attributes['db.system.name'] === 'pglite');
    expect(db.length).toBeGreaterThan(0);
    for (const child of db) expect(child.spanContext().traceId).toBe(TRACE_ID);
    expect(db.some((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)).toBe(true);
    expect(JSON.stringify(db.map((s) => s.attributes))).not.toContain(mcpToken);

    const points = await durationPoints();
    const point = points.find(
      (p) =>
        p.attributes['gen_ai.tool.name'] === 'kadu_tasks_list' && p.attributes['mcp.protocol.version'] === '2026-07-28',
    );
    expect(point?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
    });
    expect(point?.value.count).toBe(1);
    // Request ids are per request: never a metric attribute.
    expect(point?.attributes['jsonrpc.request.id']).toBeUndefined();
  });

  it('a 2025 call continues the HTTP traceparent header', async () => {
    const res = await mcp(legacyRequest('tools/call', { name: 'kadu_tasks_list', arguments: {} }, { id: 7 }), {
      traceparent: traceparent(HEADER_SPAN),
    });
    expect(res.status).toBe(200);
    const span = serverSpan();
    expect(span.name).toBe('tools/call kadu_tasks_list');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(HEADER_SPAN);
    expect(span.links).toEqual([]);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2025-06-18',
      'jsonrpc.request.id': '7',
      'gen_ai.tool.name': 'kadu_tasks_list',
    });
    const points = await durationPoints();
    expect(
      points.find(
        (p) =>
          p.attributes['mcp.protocol.version'] === '2025-06-18' &&
          p.attributes['gen_ai.tool.name'] === 'kadu_tasks_list',
      )?.value.count,
    ).toBe(1);
  });

  it('the span lasts what the duration metric recorded (both ends on one clock, below the millisecond)', async () => {
    const series = async () =>
      (await durationPoints()).find(
        (p) =>
          p.attributes['gen_ai.tool.name'] === 'kadu_tasks_list' &&
          p.attributes['mcp.protocol.version'] === '2026-07-28',
      )?.value.sum ?? 0;
    const before = await series();
    const res = await mcp(modernRequest('tools/call', { name: 'kadu_tasks_list', arguments: {} }, { id: 11 }));
    expect(res.status).toBe(200);
    const recorded = (await series()) - before;
    const [seconds, nanos] = serverSpan().duration;
    expect(recorded).toBeGreaterThan(0);
    // Ended at Date.now() instead, the span was off by up to a millisecond (whole-ms end times).
    expect(Math.abs(seconds + nanos / 1e9 - recorded)).toBeLessThan(2e-6);
  });

  it('a refused call records the JSON-RPC code as error.type, and an unknown tool name stays out of the span name', async () => {
    const res = await mcp(modernRequest('tools/call', { name: 'no_such_tool', arguments: {} }, { id: 3 }));
    expect(res.body.error.code).toBe(-32602);
    const span = serverSpan();
    expect(span.name).toBe('tools/call');
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
      'jsonrpc.request.id': '3',
    });
    expect(span.attributes['gen_ai.tool.name']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: res.body.error.message });
    const points = await durationPoints();
    expect(points.find((p) => p.attributes['error.type'] === '-32602')?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'rpc.response.status_code': '-32602',
    });
  });

  it('a rate-limited call (429) is a refused span and counts a refusal of its budget', async () => {
    // The write budget is 5 a minute here: the sixth write is refused at rung 10.
    for (let i = 0; i < 6; i++) {
      const res = await mcp(
        modernRequest(
          'tools/call',
          { name: 'kadu_tasks_create', arguments: { name: `t${i}`, kind: 'echo', cost_cap: 1 } },
          { id: `w${i}` },
        ),
      );
      if (i < 5) expect(res.status).toBe(200);
      else expect(res.status).toBe(429);
    }
    const refused = spans.getFinishedSpans().find((s) => s.attributes['jsonrpc.request.id'] === 'w5');
    expect(refused?.name).toBe('tools/call kadu_tasks_create');
    expect(refused?.attributes).toMatchObject({ 'error.type': '-32600', 'http.response.status_code': 429 });
    metricExporter.reset();
    await reader.forceFlush();
    const counter = metricExporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'mcp.server.rate_limit.refusals');
    expect(counter?.dataPoints.find((p) => p.attributes['mcp.rate_limit.budget'] === 'writes')?.value).toBe(1);
  });

  it('a tool error is error.type tool_error on a 200', async () => {
    const res = await mcp(
      modernRequest(
        'tools/call',
        { name: 'kadu_tasks_get', arguments: { id: '0190c0de-0000-7000-8000-000000000000' } },
        { id: 9 },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    const span = serverSpan();
    expect(span.attributes).toMatchObject({
      'error.type': 'tool_error',
      'gen_ai.tool.name': 'kadu_tasks_get',
      'http.response.status_code': 200,
    });
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const points = await durationPoints();
    expect(points.find((p) => p.attributes['error.type'] === 'tool_error')?.attributes['gen_ai.tool.name']).toBe(
      'kadu_tasks_get',
    );
  });

  it('a REST request is a server span named by its route, a run links the execution to it, its webhook delivery is a child', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    const api = (method: 'post' | 'put', path: string, body: object) =>
      request(app.getHttpServer())[method](path).set('Authorization', `Bearer ${apiToken}`).send(body);
    const created = await api('post', '/api/v1/tasks', { name: 'Echo', kind: 'echo', cost_cap: 5 });
    const taskId = created.body.data.id as string;
    const hook = await api('post', '/api/v1/webhooks', { url: receiver.url, events: ['execution.succeeded'] });
    expect(
      (
        await api('put', `/api/v1/tasks/${taskId}/destinations`, {
          destinations: [{ type: 'webhook', webhook_id: hook.body.data.id }],
        })
      ).status,
    ).toBe(200);
    spans.reset();
    const run = await request(app.getHttpServer())
      .post(`/api/v1/tasks/${taskId}/run`)
      .set('Authorization', `Bearer ${apiToken}`)
      .set('traceparent', traceparent(HEADER_SPAN))
      .send({ input: { hello: 'traces' } });
    expect(run.status).toBe(202);
    const rest = spans.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
    expect(rest?.name).toBe('POST /api/v1/tasks/:id/run');
    expect(rest?.parentSpanContext?.spanId).toBe(HEADER_SPAN);
    expect(rest?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/v1/tasks/:id/run',
      'url.path': `/api/v1/tasks/${taskId}/run`,
      'http.response.status_code': 202,
    });
    const send = spans.getFinishedSpans().find((s) => s.name === 'send executions');
    expect(send?.kind).toBe(SpanKind.PRODUCER);
    expect(send?.spanContext().traceId).toBe(TRACE_ID);

    // The execution runs in a trace of its own, linked to the request that queued it.
    const deadline = Date.now() + 10_000;
    let processed: ReadableSpan | undefined;
    while (!processed && Date.now() < deadline) {
      processed = spans
        .getFinishedSpans()
        .find((s) => s.name === 'process executions' && s.attributes['kadu.execution.id'] === run.body.data.id);
      if (!processed) await new Promise((r) => setTimeout(r, 25));
    }
    expect(processed?.kind).toBe(SpanKind.CONSUMER);
    expect(processed?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(processed?.links.map((l) => l.context.spanId)).toEqual([send!.spanContext().spanId]);
    const steps = spans
      .getFinishedSpans()
      .filter((s) => s.spanContext().traceId === processed!.spanContext().traceId && s.attributes['db.system.name']);
    expect(steps.length).toBeGreaterThan(0);

    // The outcome's webhook, delivered at once: an attempt span in the execution's trace.
    await receiver.waitFor(1);
    await receiver.stop();
    let delivery: ReadableSpan | undefined;
    while (!delivery && Date.now() < deadline) {
      delivery = spans.getFinishedSpans().find((s) => s.name === 'deliver webhook');
      if (!delivery) await new Promise((r) => setTimeout(r, 25));
    }
    expect(delivery?.attributes).toMatchObject({
      'kadu.webhook.event': 'execution.succeeded',
      'kadu.webhook.attempt': 1,
    });
    expect(delivery?.spanContext().traceId).toBe(processed!.spanContext().traceId);

    metricExporter.reset();
    await reader.forceFlush();
    const all = metricExporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics)
      .flatMap((s) => s.metrics);
    const finished = all.find((m) => m.descriptor.name === 'kadu.executions.finished');
    expect(finished?.dataPoints.find((p) => p.attributes['kadu.execution.status'] === 'succeeded')?.value).toBe(1);
    const requests = all.find((m) => m.descriptor.name === 'kadu.requests');
    expect(
      requests?.dataPoints.find((p) => p.attributes['kadu.door'] === 'api' && p.attributes['kadu.outcome'] === 'ok')
        ?.value,
    ).toBeGreaterThanOrEqual(2);
    expect(
      requests?.dataPoints.find(
        (p) => p.attributes['kadu.door'] === 'mcp' && p.attributes['kadu.outcome'] === 'rate_limited',
      )?.value,
    ).toBe(1);
    expect(
      requests?.dataPoints.find(
        (p) => p.attributes['kadu.door'] === 'mcp' && p.attributes['kadu.outcome'] === 'tool_error',
      )?.value,
    ).toBe(1);
    expect(all.find((m) => m.descriptor.name === 'kadu.executions.queue.depth')?.dataPoints[0]?.value).toBe(0);
    const attempts = all.find((m) => m.descriptor.name === 'kadu.webhooks.attempts');
    expect(
      attempts?.dataPoints.find((p) => p.attributes['kadu.webhook.outcome'] === 'delivered')?.attributes[
        'http.response.status_code'
      ],
    ).toBe(200);
  });

  it('a delivery pass gives each delivery its own queuing trace, never the trace of the request that asked for the pass', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    // A member of its own: the rate-limit and REST tests spend ana's and rui's write budgets.
    const token = await issueDevToken(config, { org: 'acme', user: 'eva@acme.test', role: 'admin', audience: 'api' });
    const hook = await request(app.getHttpServer())
      .post('/api/v1/webhooks')
      .set('Authorization', `Bearer ${token}`)
      .send({ url: receiver.url, events: ['execution.succeeded'] });
    expect(hook.status).toBe(201);
    const db = app.get<Database>(DATABASE);
    const [{ org_id: orgId }] = await db.query<{ org_id: string }>('select org_id from webhooks where id = $1', [
      hook.body.data.id,
    ]);
    const insert = (id: string, status: string, traceParent: string | null) =>
      db.query(
        `insert into webhook_deliveries (id, org_id, webhook_id, event, payload, status, next_attempt_at, trace_parent)
         values ($1, $2, $3, 'execution.succeeded', '{}'::jsonb, $4, now(), $5)`,
        [id, orgId, hook.body.data.id, status, traceParent],
      );
    spans.reset();
    // Queued earlier, each by its own trace or by none, and due now: the replay's pass claims them
    // too, unless the worker's timer (every second) came first.
    const OTHER_TRACE = '11111111111111111111111111111111';
    const OTHER_SPAN = '2222222222222222';
    const [original, otherTrace, noTrace] = [newId(), newId(), newId()];
    await insert(original, 'delivered', null);
    await insert(otherTrace, 'pending', `00-${OTHER_TRACE}-${OTHER_SPAN}-01`);
    await insert(noTrace, 'pending', null);
    const replay = await request(app.getHttpServer())
      .post(`/api/v1/webhook_deliveries/${original}/replay`)
      .set('Authorization', `Bearer ${token}`)
      .set('traceparent', traceparent(HEADER_SPAN));
    expect(replay.status).toBe(202);
    await receiver.waitFor(3);
    await receiver.stop();
    const deadline = Date.now() + 10_000;
    const attemptOf = (id: string) =>
      spans
        .getFinishedSpans()
        .find((s) => s.name === 'deliver webhook' && s.attributes['kadu.webhook.delivery_id'] === id);
    while (!(attemptOf(replay.body.data.id) && attemptOf(otherTrace) && attemptOf(noTrace)))
      if (Date.now() > deadline) throw new Error('the three attempts were not traced');
      else await new Promise((r) => setTimeout(r, 25));
    const rest = spans.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.name.endsWith('/replay'));
    // The replay's own delivery: in the replay request's trace, under its span.
    expect(attemptOf(replay.body.data.id)?.spanContext().traceId).toBe(TRACE_ID);
    expect(attemptOf(replay.body.data.id)?.parentSpanContext?.spanId).toBe(rest?.spanContext().spanId);
    // The others: in the trace that queued them, or in one of their own.
    expect(attemptOf(otherTrace)?.spanContext().traceId).toBe(OTHER_TRACE);
    expect(attemptOf(otherTrace)?.parentSpanContext?.spanId).toBe(OTHER_SPAN);
    expect(attemptOf(noTrace)?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(attemptOf(noTrace)?.parentSpanContext).toBeUndefined();
    // The pass itself (its claim of every organisation's due deliveries) is in no request's trace.
    const claims = spans
      .getFinishedSpans()
      .filter((s) => String(s.attributes['db.query.text'] ?? '').includes('for update skip locked'));
    expect(claims.filter((s) => s.spanContext().traceId === TRACE_ID)).toHaveLength(0);
  });

  it("a secret-entry link's token and a sign-in's interaction never leave in a span: their url.path is scrubbed", async () => {
    const token = 'tOkEn-0123456789abcdefghijklmnopqrstuvwxyzABCD';
    const uid = 'interaction-0123456789abcdef';
    for (const path of [`/secrets/entry/${token}`, `/sign-in/${uid}`]) {
      spans.reset();
      const res = await request(app.getHttpServer()).get(path);
      expect(res.status).toBeLessThan(500);
      const rest = spans.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
      expect(rest?.attributes['url.path']).toBe(path.replace(/[^/]+$/, 'REDACTED'));
      expect(JSON.stringify(spans.getFinishedSpans().map((s) => [s.name, s.attributes]))).not.toMatch(
        new RegExp(`${token}|${uid}`),
      );
    }
  });
});
