// Nest's default main.ts, on an ephemeral port that it prints for the test.
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { AppModule } from './app.module.js';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  console.log(`listening on ${((app.getHttpServer() as Server).address() as { port: number }).port}`);
}
void bootstrap();
