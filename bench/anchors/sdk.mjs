// Anchor: the official SDK's createMcpHandler (@modelcontextprotocol/server 2.4.0), which builds
// one McpServer per request by design, serving the same echo tool.
import { createServer } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const input = z.object({ text: z.string().max(100), times: z.number().int().min(1).max(5) });
const handler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
    server.registerTool(
      'bench_echo',
      { description: 'Echoes a small DTO (benchmark).', inputSchema: input },
      async ({ text, times }) => ({
        content: [{ type: 'text', text: JSON.stringify({ data: { text: text.repeat(times), by: null } }) }],
      }),
    );
    return server;
  },
  { responseMode: 'json', legacy: 'stateless' },
);
const server = createServer(toNodeHandler(handler));
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  console.log(`READY ${JSON.stringify({ port: server.address().port })}`),
);
