import type { DynamicModule, INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { AppModule } from './app.module.js';
import { failedReplyBody } from './common/api-error.js';
import { applyServerTimeouts, configureHttp, type HttpObservability } from './common/http-setup.js';
import { KaduValidationPipe } from './common/validation.js';
import { type AppConfig } from './config/app-config.js';
import { ApiDescription } from './openapi/api-description.service.js';

/**
 * Builds the Kadu app exactly as `main.ts` runs it; tests call it with their own configuration.
 * Signals are `main.ts`'s business (its graceful shutdown), not the app's.
 */
export async function createKaduApp(
  config: AppConfig,
  logger: LoggerService | LogLevel[] | false = ['error', 'warn', 'log'],
  extraImports: DynamicModule['imports'] = [],
  observability: HttpObservability = {},
): Promise<INestApplication> {
  // Express with its prototypes set at construction (a third of the CPU of every request, both
  // doors), and the REST answers sent at the end of the event loop's turn (about half the CPU of a
  // REST call: bench/RESULTS.md, issue 32, twenty-eighth pass).
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, extraImports),
    new StableExpressAdapter(undefined, { jsonRepliesAtTurnEnd: true, failedReplyBody }),
    {
      bodyParser: false,
      logger,
      abortOnError: false,
    },
  );
  configureHttp(app, config, '/mcp', observability);
  app.useGlobalPipes(new KaduValidationPipe());
  await app.init();
  app.get(ApiDescription).build(app);
  applyServerTimeouts(app);
  return app;
}
