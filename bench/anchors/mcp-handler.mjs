// Anchor: Vercel's mcp-handler 2.4.0 (on @modelcontextprotocol/server 2.4.0), serving the same echo
// tool. It is stateless by design (a server per request, 2026-07-28 served natively) and answers
// a tool call without mid-call messages with a single JSON body (the SDK's responseMode `auto`).
// It is a Web `(Request) => Response` handler: mounted on Node's http server through
// @remix-run/node-fetch-server, as its README says frameworks on IncomingMessage need.
import { createServer } from 'node:http';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { createMcpHandler } from 'mcp-handler';
import { z } from 'zod';

const handler = createMcpHandler(
  (server) => {
    server.registerTool(
      'bench_echo',
      {
        description: 'Echoes a small DTO (benchmark).',
        inputSchema: z.object({ text: z.string().max(100), times: z.number().int().min(1).max(5) }),
      },
      async ({ text, times }) => ({
        content: [{ type: 'text', text: JSON.stringify({ data: { text: text.repeat(times), by: null } }) }],
      }),
    );
  },
  { serverInfo: { name: 'bench-mcp-handler', version: '1.0.0' } },
);
const http = createServer(createRequestListener(handler));
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`READY ${JSON.stringify({ port: http.address().port })}`),
);
