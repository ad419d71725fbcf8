import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { issueDevToken } from '../../src/auth/dev-token.js';
import { loadConfig } from '../../src/config/app-config.js';
import { REDIS_URL, redis, requires } from '../support/infrastructure.js';
import { type AppProcess, ensureBuilt, jsonLines, runApp } from './built-app.js';

/**
 * The real wiring, from the standard variables only: the built app exports its spans over OTLP
 * (to a collector this test plays), serves Prometheus text on its own port, and writes one JSON
 * access line per request carrying the trace id — never the token.
 */
// Redis too, so that its commands (auto-instrumented ioredis) are seen as children of the MCP span.
const withRedis = requires(await redis());

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A stand-in OpenTelemetry collector: the OTLP/HTTP JSON the exporter posts, kept. */
class Collector {
  readonly spans: OtlpSpan[] = [];
  readonly metricNames = new Set<string>();
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = JSON.parse(body.toString('utf8') || '{}');
        if (req.url === '/v1/traces') {
          for (const rs of json.resourceSpans ?? [])
            for (const ss of rs.scopeSpans ?? []) this.spans.push(...(ss.spans ?? []));
        } else if (req.url === '/v1/metrics') {
          for (const rm of json.resourceMetrics ?? [])
            for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) this.metricNames.add(m.name);
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v && (v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue);
};

/** Prometheus text exposition → samples (name, labels, value); comments skipped. */
function parsePrometheus(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

withRedis.describe('telemetry exported from the built app', () => {
  const collector = new Collector();
  let app: AppProcess;
  let dataDir: string;
  let base: string;
  let metricsUrl: string;
  let mcpToken: string;
  let apiToken: string;

  beforeAll(async () => {
    ensureBuilt();
    await collector.start();
    dataDir = mkdtempSync(join(tmpdir(), 'kadu-export-'));
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir });
    mcpToken = await issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin' });
    apiToken = await issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin', audience: 'api' });
    app = runApp({
      PORT: '0',
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
      // This collector reads JSON; the default, protobuf, is pinned by src/telemetry/otlp-exporters.spec.ts.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'otlp,prometheus',
      OTEL_EXPORTER_PROMETHEUS_PORT: '0',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      REDIS_URL,
      REDIS_PREFIX: `kadu-export-${process.pid}-${Date.now()}:`,
      MCP_STATE_KEY: 'e'.repeat(32),
      DEV_SIGNING_KEY_FILE: join(dataDir, 'dev-signing-key.json'),
      // The series test sends hundreds of requests: budgets are not what it is about.
      KADU_RATE_GENERAL: '100000/60',
      KADU_RATE_WRITES: '100000/60',
      // Client ID Metadata Documents on loopback hosts it invents: outgoing requests to them.
      OAUTH_DEV_CIMD_ALLOW_LOOPBACK: 'true',
    });
    base = (await app.waitFor(/Kadu listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    metricsUrl = (await app.waitFor(/Metrics: +(http:\/\/127\.0\.0\.1:\d+\/metrics)/))[1]!;
  }, 180_000);

  afterAll(async () => {
    if (app) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await collector.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports the MCP span over OTLP, with the Redis commands of its rate-limit check as children', async () => {
    const r = modernRequest('tools/call', { name: 'kadu_tasks_list', arguments: {} }, { id: 'otlp-1' });
    const res = await request(base).post('/mcp').set(r.headers).set('Authorization', `Bearer ${mcpToken}`).send(r.body);
    expect(res.status).toBe(200);
    const deadline = Date.now() + 20_000;
    let span: OtlpSpan | undefined;
    while (!span && Date.now() < deadline) {
      span = collector.spans.find((s) => attr(s, 'jsonrpc.request.id') === 'otlp-1');
      if (!span) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(span?.name).toBe('tools/call kadu_tasks_list');
    expect(span?.kind).toBe(2); // SERVER
    expect(attr(span!, 'mcp.method.name')).toBe('tools/call');
    expect(attr(span!, 'gen_ai.tool.name')).toBe('kadu_tasks_list');
    expect(attr(span!, 'mcp.protocol.version')).toBe('2026-07-28');
    const children = collector.spans.filter((s) => s.parentSpanId === span!.spanId);
    expect(children.some((s) => attr(s, 'db.system.name') === 'pglite')).toBe(true);
    expect(children.some((s) => attr(s, 'db.system.name') === 'redis' || attr(s, 'db.system') === 'redis')).toBe(true);

    // The access line of that request: its trace id, the MCP method and tool, who — and no token.
    const line = jsonLines(app.stdout()).find((l) => l.event === 'http.request' && l.mcp_target === 'kadu_tasks_list');
    expect(line).toMatchObject({
      method: 'POST',
      route: '/mcp',
      status: 200,
      door: 'mcp',
      mcp_method: 'tools/call',
      mcp_era: 'modern',
      mcp_protocol_version: '2026-07-28',
      org: 'acme',
      subject: 'ana@acme.test',
      trace_id: span!.traceId,
      outcome: 'ok',
    });
    // The id the answer carried (held with the endpoint's headers for its writeHead, read back for the line).
    expect(line?.request_id).toBe(res.headers['request-id']);
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line?.duration_ms).toBe('number');
    expect(app.stdout()).not.toContain(mcpToken);
    expect(app.stdout()).not.toContain('"arguments"');
  }, 60_000);

  it('a REST request with a JSON body: its span continues the traceparent, and its SQL and access line are in it', async () => {
    // The body is parsed from the request's stream events after the span was entered: the context
    // must follow it there (src/telemetry/promise-hook-context-manager.ts on Node 20).
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parent = 'b7ad6b7169203331';
    const res = await request(base)
      .post('/api/v1/tasks')
      .set('Authorization', `Bearer ${apiToken}`)
      .set('traceparent', `00-${traceId}-${parent}-01`)
      .send({ name: 'traced', kind: 'echo', cost_cap: 5 });
    expect(res.status).toBe(201);
    const deadline = Date.now() + 20_000;
    let span: OtlpSpan | undefined;
    while (!span && Date.now() < deadline) {
      span = collector.spans.find((s) => s.name === 'POST /api/v1/tasks' && s.traceId === traceId);
      if (!span) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(span?.parentSpanId).toBe(parent);
    const children = collector.spans.filter((s) => s.parentSpanId === span!.spanId);
    expect(children.some((s) => attr(s, 'db.system.name') === 'pglite')).toBe(true);
    const line = jsonLines(app.stdout()).find((l) => l.event === 'http.request' && l.trace_id === traceId);
    expect(line).toMatchObject({ method: 'POST', route: '/api/v1/tasks', status: 201, door: 'api' });
  }, 60_000);

  it('serves Prometheus text on its own port, not on the public one', async () => {
    const unknown = await request(base)
      .post('/mcp')
      .set(modernRequest('tools/call', { name: 'nope', arguments: {} }).headers)
      .set('Authorization', `Bearer ${mcpToken}`)
      .send(modernRequest('tools/call', { name: 'nope', arguments: {} }).body);
    expect(unknown.body.error.code).toBe(-32602);
    expect((await request(base).get('/metrics')).status).toBe(404);

    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    const samples = parsePrometheus(await scrape.text());
    const calls = samples.filter(
      (s) => s.name === 'mcp_server_operation_duration_count' && s.labels.mcp_method_name === 'tools/call',
    );
    expect(
      calls.find((s) => s.labels.gen_ai_tool_name === 'kadu_tasks_list' && !s.labels.error_type)?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(calls.find((s) => s.labels.error_type === '-32602')?.labels).toMatchObject({
      rpc_response_status_code: '-32602',
      mcp_protocol_version: '2026-07-28',
    });
    const buckets = samples.filter((s) => s.name === 'mcp_server_operation_duration_bucket').map((s) => s.labels.le);
    expect(buckets).toContain('0.01');
    expect(buckets).toContain('300');
    expect(
      samples.find(
        (s) => s.name === 'kadu_requests_total' && s.labels.kadu_door === 'mcp' && s.labels.kadu_outcome === 'refused',
      )?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(samples.find((s) => s.name === 'kadu_executions_queue_depth')?.value).toBe(0);
    expect(samples.some((s) => s.name === 'http_server_request_duration_count')).toBe(true);

    // And the same instruments over OTLP.
    const deadline = Date.now() + 20_000;
    while (!collector.metricNames.has('mcp.server.operation.duration') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect([...collector.metricNames]).toEqual(
      expect.arrayContaining(['mcp.server.operation.duration', 'kadu.requests']),
    );
  }, 60_000);

  it('no label grows with client input: invented methods, tool and prompt names, URIs, routes, HTTP methods and outgoing hosts add no series', async () => {
    // Where the invented Client ID Metadata Documents point: every 127.0.0.x reaches it; it hangs up.
    const sink: TcpServer = createTcpServer((socket) => socket.on('error', () => undefined).destroy());
    await new Promise<void>((resolve) => sink.listen(0, '0.0.0.0', resolve));
    const sinkPort = (sink.address() as { port: number }).port;
    const mcp = (r: { headers: Record<string, string>; body: object }) =>
      request(base).post('/mcp').set(r.headers).set('Authorization', `Bearer ${mcpToken}`).send(r.body);
    const authorize = (clientId: string) =>
      `/oauth/auth?${new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: 'http://localhost:7777/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`;
    /** One of everything a client may invent, the n-th time (at once: none depends on another). */
    const invent = (n: number): Promise<unknown> =>
      Promise.all([
        mcp(modernRequest(`invented/method-${n}`)),
        mcp(legacyRequest(`invented/legacy-${n}`)),
        mcp(modernRequest(`notifications/invented-${n}`, {}, { notification: true })),
        mcp(modernRequest('tools/call', { name: `invented_tool_${n}`, arguments: {} })),
        mcp(modernRequest('prompts/get', { name: `invented_prompt_${n}`, arguments: {} })),
        mcp(modernRequest('resources/read', { uri: `kobana://kadu/invented/${n}` })),
        request(base).get(`/api/v1/invented/${n}`).set('Authorization', `Bearer ${apiToken}`),
        request(base).get(`/no/route/${n}?q=${n}`),
        request(base).propfind(`/api/v1/tasks/${n}`).set('Authorization', `Bearer ${apiToken}`),
        // An anonymous client's Client ID Metadata Document on a host it chose: an outgoing request.
        request(base).get(authorize(`https://127.0.0.${2 + n}:${sinkPort}/client-${n}.json`)),
      ]);
    const series = async () => parsePrometheus(await (await fetch(metricsUrl)).text());
    try {
      await invent(0);
      const first = await series();
      // The outgoing requests are measured (else this test would not try their labels).
      expect(first.some((s) => s.name === 'http_client_request_duration_count')).toBe(true);
      expect(first.some((s) => s.labels.mcp_method_name === '_OTHER')).toBe(true);
      for (let n = 1; n <= 60; n++) await invent(n);
      const after = await series();
      const names = (samples: typeof first) => samples.map((s) => `${s.name}${JSON.stringify(s.labels)}`).sort();
      expect(names(after)).toEqual(names(first));
      for (const sample of after) {
        expect(JSON.stringify(sample.labels)).not.toMatch(/invented|127\.0\.0\.|\/no\/route|PROPFIND/);
      }
    } finally {
      await new Promise((resolve) => sink.close(resolve));
    }
  }, 180_000);
});
