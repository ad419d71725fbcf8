import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { ConformanceFixtureModule } from './fixture.module.js';

/** Starts the fixture on 127.0.0.1 (port from argv or PORT; 0 = any) and prints `LISTENING <port>`. */
async function main(): Promise<void> {
  const app = await NestFactory.create(ConformanceFixtureModule, new StableExpressAdapter(), {
    bodyParser: false,
    logger: ['error', 'warn'],
    abortOnError: false,
  });
  await app.listen(Number(process.argv[2] ?? process.env.PORT ?? 0), '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  console.log(`LISTENING ${address.port}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
