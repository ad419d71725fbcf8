import { Test } from '@nestjs/testing';
import { ConfigService } from '@nestjs/config';
import { APP_CONFIG, type AppConfig, CONFIG_SLICES, ConfigError, loadConfig } from './app-config.js';
import { KaduConfigModule } from './kadu-config.module.js';
import { readEnv, settingsOf } from './schema/env-schema.js';
import { databaseConfig } from './slices/database.config.js';
import type { DatabaseConfig } from './slices/database.config.js';

const DATA_DIR = '/tmp/kadu-app-config-spec';

describe('the configuration schema', () => {
  it('AppConfig is the slices side by side: every field in exactly one slice', () => {
    const keys = CONFIG_SLICES.flatMap((slice) => slice.keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual(Object.keys(loadConfig({ DATA_DIR })).sort());
  });

  it('every variable is declared once, and every default passes its own check', () => {
    const names = CONFIG_SLICES.flatMap((slice) => settingsOf(slice.schema).map((s) => s.name));
    expect(new Set(names).size).toBe(names.length);
    for (const slice of CONFIG_SLICES) {
      for (const setting of settingsOf(slice.schema)) {
        const literal = /^`([^`]*)`$/.exec(setting.defaultText)?.[1];
        if (literal === undefined || setting.defaultText.includes('$')) continue;
        expect(readEnv(slice.schema, { [setting.name]: literal }).problems, setting.name).toEqual([]);
      }
    }
  });

  it('reports every malformed value in one list, in the order of the slices', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', KADU_QUEUE_LOCK_MS: '0', KADU_RATE_WRITES: '1' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "PORT must be an integer port, got 'x'",
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'loud'",
      "KADU_QUEUE_LOCK_MS must be at least 1 (milliseconds), got '0'",
      'KADU_RATE_WRITES must be "points/seconds" or "off", got \'1\'',
    ]);
  });

  it('runs on its embedded defaults with no environment at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', env: 'development', devTokens: true });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redis).toBeUndefined();
  });
});

describe('KaduConfigModule', () => {
  it('provides APP_CONFIG, each slice under its registerAs token, and ConfigService', async () => {
    const config = loadConfig({ DATA_DIR, DATABASE_URL: 'postgres://db/kadu', KADU_DEPENDENCY_TIMEOUT_MS: '1234' });
    const module = await Test.createTestingModule({ imports: [KaduConfigModule.forRoot(config)] }).compile();
    expect(module.get<AppConfig>(APP_CONFIG)).toEqual(config);
    expect(module.get<DatabaseConfig>(databaseConfig.KEY)).toEqual({
      databaseUrl: 'postgres://db/kadu',
      databaseSchema: undefined,
      dependencyTimeoutMs: 1234,
    });
    expect(module.get(ConfigService).get('database.dependencyTimeoutMs')).toBe(1234);
    await module.close();
  });

  it("a slice's own factory, as registerAs made it, reads process.env and refuses a malformed value", () => {
    // Unstubbed even when an assertion fails: later files share this process (vitest.config.mts).
    try {
      vi.stubEnv('KADU_DEPENDENCY_TIMEOUT_MS', '250');
      expect(databaseConfig().dependencyTimeoutMs).toBe(250);
      vi.stubEnv('KADU_DEPENDENCY_TIMEOUT_MS', '0');
      expect(() => databaseConfig()).toThrow(ConfigError);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
