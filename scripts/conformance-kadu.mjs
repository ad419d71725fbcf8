// The Kadu app as a conformance target: started from dist on a free port with a fresh data folder,
// behind a small local proxy that adds an owner's token (every tool visible) to each request — the
// conformance suite has no option to send one. Used by scripts/conformance.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { APP_ENTRY } from './app-entry.mjs';
import { freePort } from './free-port.mjs';

const listen = (server) =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });

/** Starts Kadu and the token proxy; resolves with the MCP URL to test and a stop function. */
export async function startKaduTarget(root) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kadu-conformance-'));
  const proxy = createServer();
  const proxyPort = await listen(proxy);
  const kaduPort = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: String(kaduPort),
    DATA_DIR: dataDir,
    // The public origin is the proxy's, so the token's audience and the Origin checks match what the suite sees.
    PUBLIC_BASE_URL: `http://localhost:${proxyPort}`,
    KADU_RATE_GENERAL: 'off',
    KADU_RATE_WRITES: 'off',
    KADU_RATE_FAILED_AUTH: 'off',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.OAUTH_JWKS_URL;
  const kadu = spawn(process.execPath, [APP_ENTRY], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let out = '';
    kadu.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Kadu listening on')) resolve();
    });
    kadu.once('exit', (code) => reject(new Error(`Kadu exited (${code}) before listening`)));
    setTimeout(() => reject(new Error('Kadu did not start in 60 s')), 60_000).unref();
  });
  kadu.stdout.resume();

  const { loadConfig } = await import(join(root, 'dist/src/config/app-config.js'));
  const { issueDevToken } = await import(join(root, 'dist/src/auth/dev-token.js'));
  const token = await issueDevToken(loadConfig(env), {
    org: 'conformance',
    user: 'suite@conformance.test',
    role: 'owner',
    ttlSeconds: 3600,
  });

  proxy.on('request', (req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: kaduPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        pipeline(answer, res, () => undefined);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    pipeline(req, upstream, () => undefined);
  });

  return {
    url: `http://localhost:${proxyPort}/mcp`,
    async stop() {
      kadu.kill();
      await new Promise((resolve) => proxy.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
