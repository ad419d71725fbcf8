import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import { APP_CONFIG, type AppConfig, assembleConfig, CONFIG_SLICES, sliceOf } from './app-config.js';

/**
 * The configuration in Nest (`@nestjs/config`): every slice under its `registerAs` token
 * (`httpConfig.KEY`, `databaseConfig.KEY`…, and `ConfigService.get('database.databaseUrl')`), and
 * APP_CONFIG assembled from them. The values are the ones `loadConfig` validated at start, not
 * read again: `ignoreEnvVars`/`ignoreEnvFile` keep `@nestjs/config` off `process.env` and `.env`,
 * since one process may hold several apps with their own environment (tests, replicas).
 */
@Module({})
export class KaduConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    const slices = CONFIG_SLICES.map((slice) => registerAs(slice.namespace, () => sliceOf(config, slice)));
    return {
      module: KaduConfigModule,
      global: true,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          ignoreEnvVars: true,
          skipProcessEnv: true,
          load: slices,
        }),
      ],
      providers: [
        {
          provide: APP_CONFIG,
          inject: CONFIG_SLICES.map((slice) => slice.KEY),
          useFactory: (...values: object[]) => assembleConfig(values),
        },
      ],
      exports: [APP_CONFIG],
    };
  }
}
