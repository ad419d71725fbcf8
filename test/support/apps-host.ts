import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';

/**
 * The test host of MCP Apps (test/support/apps-host/host-entry.ts), bundled for the browser with
 * Vite, and served with a same-origin pass-through of /mcp to Kadu — the browser then talks to one
 * origin only, as a chat's page would to its own backend.
 */
export interface AppsHost {
  url: string;
  close(): Promise<void>;
}

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;font-family:system-ui}main{padding:.5rem}iframe{width:100%;height:1100px;border:1px solid #d5dbe5;border-radius:.5rem}</style>
</head><body><main><h1>Chat</h1><div id="apps"></div></main><script src="/host.js"></script></body></html>`;

export async function startAppsHost(kaduPort: number): Promise<AppsHost> {
  const out = mkdtempSync(join(tmpdir(), 'kadu-apps-host-'));
  await build({
    logLevel: 'error',
    configFile: false,
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: false,
      lib: {
        entry: join(import.meta.dirname, 'apps-host/host-entry.ts'),
        formats: ['iife'],
        name: 'host',
        fileName: () => 'host.js',
      },
    },
  });
  const bundle = readFileSync(join(out, 'host.js'));
  rmSync(out, { recursive: true, force: true });
  const server: Server = createServer((req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (req.url === '/host.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    const upstream = forward(
      {
        host: '127.0.0.1',
        port: kaduPort,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: `127.0.0.1:${kaduPort}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
