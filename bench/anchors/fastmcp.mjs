// Anchor: FastMCP (fastmcp 4.20.16) in its stateless HTTP-stream mode with JSON responses
// (`httpStream: { stateless: true, enableJsonResponse: true }`), serving the same echo tool. It is
// built on the official SDK 1.x, which does not know protocol version 2026-07-28: the bench sends
// it the 2025-06-18 request (bench/run.mjs `legacy`), as a 2025-era client would.
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
// FastMCP listens on the port it is given and does not report an ephemeral one: take a free port first.
import { freePort } from '../../scripts/free-port.mjs';

const server = new FastMCP({
  name: 'bench-fastmcp',
  version: '1.0.0',
  logger: { debug() {}, error() {}, info() {}, log() {}, warn() {} },
});
server.addTool({
  name: 'bench_echo',
  description: 'Echoes a small DTO (benchmark).',
  parameters: z.object({ text: z.string().max(100), times: z.number().int().min(1).max(5) }),
  execute: async ({ text, times }) => JSON.stringify({ data: { text: text.repeat(times), by: null } }),
});
const port = Number(process.env.PORT ?? 0) || (await freePort());
await server.start({
  transportType: 'httpStream',
  httpStream: { port, host: '127.0.0.1', endpoint: '/mcp', stateless: true, enableJsonResponse: true },
});
console.log(`READY ${JSON.stringify({ port })}`);
