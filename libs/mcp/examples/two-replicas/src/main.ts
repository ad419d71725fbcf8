import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { settings } from './settings';

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  // SIGTERM from the orchestrator closes the Redis connections (and ends requests cleanly).
  app.enableShutdownHooks();
  await app.listen(settings.port, '127.0.0.1');
  console.log(`MCP endpoint: ${await app.getUrl()}/mcp`);
}
bootstrap();
