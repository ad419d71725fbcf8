// Nest's default main.ts, with the port from PORT (0: any free port) and the URL printed, on the
// module's StableExpressAdapter, its REST replies sent at the end of the event loop's turn (both
// optional: Nest's default adapter works the same, slower; libs/mcp/docs/module-options.md). The
// adopter suite runs this app on Nest 10, 11 and 12.
import { NestFactory } from '@nestjs/core';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import type { Server } from 'node:http';
import { AppModule } from './app.module.js';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, new StableExpressAdapter(undefined, { jsonRepliesAtTurnEnd: true }), {
    logger: ['error', 'warn'],
  });
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as { port: number };
  console.log(`MCP endpoint: http://127.0.0.1:${port}/mcp (listening on ${port})`);
}
void bootstrap();
