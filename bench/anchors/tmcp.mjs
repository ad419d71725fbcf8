// Anchor: tmcp 1.20.0 with @tmcp/transport-http 0.9.0 in its per-request (sessionless, 2026-07-28)
// mode, the zod adapter, on Node's http server through @remix-run/node-fetch-server (the adapter
// its README shows). tmcp has no JSON response mode: every request with an id is answered by an
// SSE stream carrying the one result event (transport-http src/index.js, #handle_post) — its
// closest mode to ours, measured as it is (bench/RESULTS.md).
import { createServer } from 'node:http';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { HttpTransport } from '@tmcp/transport-http';
import { McpServer } from 'tmcp';
import { z } from 'zod';

const server = new McpServer(
  { name: 'bench-tmcp', version: '1.0.0', description: 'benchmark' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: false } } },
);
server.tool(
  {
    name: 'bench_echo',
    description: 'Echoes a small DTO (benchmark).',
    schema: z.object({ text: z.string().max(100), times: z.number().int().min(1).max(5) }),
  },
  async ({ text, times }) => ({
    content: [{ type: 'text', text: JSON.stringify({ data: { text: text.repeat(times), by: null } }) }],
  }),
);
const transport = new HttpTransport(server, { path: '/mcp' });
const http = createServer(
  createRequestListener(
    async (request) => (await transport.respond(request)) ?? new Response('Not found', { status: 404 }),
  ),
);
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`READY ${JSON.stringify({ port: http.address().port })}`),
);
