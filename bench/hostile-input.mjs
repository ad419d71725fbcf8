// node bench/hostile-input.mjs   (after npm run build; no bench/node_modules needed)
// Issue 13's acceptance, measured: while one hostile request is being answered, how long does a
// concurrent GET /health/live wait? The built Kadu runs in a child process (embedded defaults);
// this process sends each hostile request once per round and, at the same time, probes
// /health/live every 2 ms, keeping the slowest probe that overlapped the request. A benign request
// (a task read) is measured the same way as the baseline. Limit: 100 ms.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_ENTRY } from '../scripts/app-entry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const LIMIT_MS = 100;

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const dataDir = mkdtempSync(join(tmpdir(), 'kadu-hostile-'));
const env = {
  ...process.env,
  PORT: String(port),
  DATA_DIR: dataDir,
  NODE_ENV: 'development',
  KADU_RATE_GENERAL: 'off',
  KADU_RATE_WRITES: 'off',
  KADU_RATE_FAILED_AUTH: 'off',
};
const token = (aud) =>
  spawnSync(
    process.execPath,
    ['dist/src/cli/token.js', '--org', 'acme', '--user', 'ana@acme.test', '--role', 'owner', '--aud', aud],
    { cwd: root, env, encoding: 'utf8' },
  ).stdout.trim();
const child = spawn(process.execPath, [APP_ENTRY], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
    if (out.includes('Kadu listening')) resolve();
  });
  child.once('exit', (code) => reject(new Error(`kadu exited ${code}`)));
});
const base = `http://127.0.0.1:${port}`;
const api = token('api');
const mcp = token('mcp');

const rest = (method, path, body, raw) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${api}`, 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
const mcpCall = (argsText) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${mcp}`,
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-06-18',
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kadu_tasks_run","arguments":${argsText}}}`,
  });
const newTask = async (input_schema) =>
  (await (await rest('POST', '/api/v1/tasks', { name: 'Bench', kind: 'echo', cost_cap: 1, input_schema })).json()).data
    .id;

const redos = await newTask({ properties: { k: { type: 'string', pattern: '^(a+)+$' } } });
const unique = await newTask({ properties: { rows: { type: 'array', uniqueItems: true } } });
const plain = await newTask(null);
const rows = JSON.stringify({ input: { rows: Array.from({ length: 16_000 }, (_, i) => [i, i + 1]) } });
const rows7k = JSON.stringify({ input: { rows: Array.from({ length: 7_000 }, (_, i) => [i, i % 9]) } });
// The most expensive schema the limits allow, as far as we know: 8 patterns that together come
// near the RE2 weight limit (a big Unicode class, repeated), and subschemas up to the node limit.
const HEAVY = (i) => (i === 0 ? '^\\p{L}{1,8}$' : `^[a-z]{1,${54 + i}}[0-9_]{0,${54 + i}}$`);
const bigSchema = () => ({
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 290 }, (_, i) => [
      `p${i}_${Math.random().toString(36).slice(2, 4)}`,
      i < 8 ? { type: 'string', pattern: HEAVY(i) } : { maxLength: 9 },
    ]),
  ),
});
const heavy = await newTask({
  type: 'object',
  patternProperties: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [HEAVY(i), { type: 'string' }])),
});
// 64 KB of short keys (6,000), each tested against all 8 patterns.
const heavyInput = JSON.stringify({
  input: Object.fromEntries(Array.from({ length: 6_000 }, (_, i) => [`k${i}`, ''])),
});
const deep = (n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

const SCENARIOS = {
  'baseline: read a task': () => rest('GET', `/api/v1/tasks/${plain}`),
  'baseline: run a task with {} (accepted, run)': () => rest('POST', `/api/v1/tasks/${plain}/run`, { input: {} }),
  'ReDoS ^(a+)+$, 25 a + !': () => rest('POST', `/api/v1/tasks/${redos}/run`, { input: { k: `${'a'.repeat(25)}!` } }),
  'ReDoS ^(a+)+$, 65 000 a + !': () =>
    rest('POST', `/api/v1/tasks/${redos}/run`, { input: { k: `${'a'.repeat(65_000)}!` } }),
  'uniqueItems, 16 000 distinct arrays (over the input limit)': () =>
    rest('POST', `/api/v1/tasks/${unique}/run`, undefined, rows),
  'uniqueItems, 7 000 distinct arrays (accepted, run)': () =>
    rest('POST', `/api/v1/tasks/${unique}/run`, undefined, rows7k),
  'largest schema: save (compile)': () =>
    rest('POST', '/api/v1/tasks', { name: 'Big', kind: 'echo', cost_cap: 1, input_schema: bigSchema() }),
  '8 heaviest patternProperties x 64 KB of keys (6 000)': () =>
    rest('POST', `/api/v1/tasks/${heavy}/run`, undefined, heavyInput),
  'MCP run, 5 000-level input': () => mcpCall(`{"task_id":"${plain}","input":${deep(5_000)}}`),
  'MCP run, 900 KB input': () => mcpCall(JSON.stringify({ task_id: plain, input: { blob: 'x'.repeat(900_000) } })),
  'MCP, 1 MB of brackets': () =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mcp}`,
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
      },
      body: '['.repeat(1_000_000),
    }),
  'REST, 1 MB of nesting': () => rest('POST', '/api/v1/tasks', undefined, '{"a":'.repeat(200_000)),
  'REST, 1 MB undeclared field of small arrays': () =>
    rest(
      'POST',
      '/api/v1/tasks',
      undefined,
      `{"name":"n","kind":"echo","cost_cap":1,"junk":[${Array(250_000).fill('[]').join(',')}]}`,
    ),
  'REST run, 64 KB input of small arrays (accepted, run)': () =>
    rest('POST', `/api/v1/tasks/${plain}/run`, undefined, `{"input":{"a":[${Array(21_000).fill('[]').join(',')}]}}`),
};

async function measure(send) {
  let inFlight = true;
  let worst = 0;
  const probes = (async () => {
    while (inFlight) {
      const t = performance.now();
      await fetch(`${base}/health/live`);
      worst = Math.max(worst, performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  const res = await send();
  await res.arrayBuffer();
  inFlight = false;
  await probes;
  return { worst, status: res.status };
}

const results = [];
for (const [name, send] of Object.entries(SCENARIOS)) {
  await measure(send); // warm-up
  const worst = [];
  let status;
  for (let i = 0; i < ROUNDS; i++) {
    const m = await measure(send);
    worst.push(m.worst);
    status = m.status;
  }
  worst.sort((a, b) => a - b);
  results.push({ name, status, median: worst[Math.floor(worst.length / 2)], max: worst[worst.length - 1] });
}
child.kill('SIGTERM');
rmSync(dataDir, { recursive: true, force: true });

console.log(`\nSlowest concurrent /health/live per hostile request (${ROUNDS} rounds; limit ${LIMIT_MS} ms)\n`);
console.log('| scenario | answer | median of worst probe | max of worst probe |');
console.log('| --- | --- | --- | --- |');
for (const r of results)
  console.log(`| ${r.name} | ${r.status} | ${r.median.toFixed(1)} ms | ${r.max.toFixed(1)} ms |`);
const over = results.filter((r) => r.max > LIMIT_MS);
console.log(
  over.length ? `\nOVER ${LIMIT_MS} ms: ${over.map((r) => r.name).join(', ')}` : `\nAll under ${LIMIT_MS} ms.`,
);
for (const r of results) console.log(`HEALTH_DELAY_MS ${r.name.replace(/[^A-Za-z0-9]+/g, '_')} ${r.max.toFixed(1)}`);
process.exit(over.length ? 1 : 0);
