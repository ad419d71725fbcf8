import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createKaduApp } from './bootstrap.js';
import { loadConfig } from './config/app-config.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createKaduApp(config);
  await app.listen(config.port, config.host);
  const logger = new Logger('Kadu');
  logger.log(`Kadu listening on http://${config.host}:${config.port} (public URL ${config.publicBaseUrl})`);
  logger.log(`MCP endpoint: ${config.publicBaseUrl}/mcp   REST API: ${config.publicBaseUrl}/api/v1`);
  logger.log(`Data folder: ${config.dataDir}`);
  if (config.devAuthServer) {
    logger.log(`Development authorization server: ${config.oauthIssuer} (MCP clients sign in with OAuth; no token to paste)`);
  }
  if (config.devTokens) {
    logger.log('Development tokens are on. Get one with:');
    logger.log('  npm run token -- --org acme --user ana@acme.test --role admin');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
