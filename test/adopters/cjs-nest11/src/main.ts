// The test's entry point: the README's main.ts, on an ephemeral port that it prints for the test.
// app.module.ts is written by the test from the README's quick start, word for word.
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { AppModule } from './app.module';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  console.log(`listening on ${((app.getHttpServer() as Server).address() as { port: number }).port}`);
}
bootstrap();
