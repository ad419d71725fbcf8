import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { modernRequest } from '@kobana/nest-mcp/testing';
import { issueDevToken } from '../../src/auth/dev-token.js';
import { loadConfig } from '../../src/config/app-config.js';
import { type AppProcess, ensureBuilt, runApp } from './built-app.js';

/**
 * The built app with only an OTLP endpoint set exports its spans in protobuf, the default, through
 * the span processor that encodes them as they end (src/telemetry/encoding-span-processor.ts; its
 * bytes are compared with the SDK serializer's by otlp-trace-encoding.spec.ts). What the collector
 * receives: a protobuf request on /v1/traces holding the MCP call's span, its name and attributes.
 */
describe('traces exported in protobuf from the built app (the default protocol)', () => {
  const posts: { url?: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let collector: Server;
  let app: AppProcess;
  let dataDir: string;
  let base: string;
  let token: string;

  beforeAll(async () => {
    ensureBuilt();
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    dataDir = mkdtempSync(join(tmpdir(), 'kadu-otlp-proto-'));
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir });
    token = await issueDevToken(config, { org: 'acme', user: 'ana@acme.test', role: 'admin' });
    app = runApp({
      PORT: '0',
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`,
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      DEV_SIGNING_KEY_FILE: join(dataDir, 'dev-signing-key.json'),
    });
    base = (await app.waitFor(/Kadu listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  }, 180_000);

  afterAll(async () => {
    if (app) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    await new Promise((resolve) => collector.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('posts the MCP span as application/x-protobuf to /v1/traces', async () => {
    const r = modernRequest('tools/call', { name: 'kadu_tasks_list', arguments: {} }, { id: 'otlp-proto-7' });
    const res = await request(base).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
    expect(res.status).toBe(200);
    const deadline = Date.now() + 20_000;
    const holdsCall = (body: Buffer) => body.includes(Buffer.from('otlp-proto-7'));
    while (!posts.some((p) => holdsCall(p.body)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const post = posts.find((p) => holdsCall(p.body));
    expect(post).toMatchObject({ url: '/v1/traces', headers: { 'content-type': 'application/x-protobuf' } });
    // ExportTraceServiceRequest: field 1 (resource_spans), length-delimited.
    expect(post!.body[0]).toBe(0x0a);
    for (const text of ['tools/call kadu_tasks_list', 'jsonrpc.request.id', 'gen_ai.tool.name', 'service.name'])
      expect(post!.body.includes(Buffer.from(text))).toBe(true);
  });
});
