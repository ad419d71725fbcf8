// Nest's default main.ts, with the port from PORT (0: any free port) and the URL printed.
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  console.log(`MCP endpoint: ${await app.getUrl()}/mcp`);
}
bootstrap();
