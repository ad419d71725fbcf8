import { describeRedis } from '@kobana/nest-mcp/redis';
import { resolve } from 'node:path';
import type { AppConfig } from './config/app-config.js';

export interface BannerFacts {
  readonly config: AppConfig;
  readonly env: NodeJS.ProcessEnv;
  /** Where the HTTP server actually listens (the port may have been 0). */
  readonly listening: { host: string; port: number };
  readonly metricsUrl?: string;
  readonly traces?: string;
}

/**
 * What an operator needs to see once the process is up: the topology, the URLs, and a token
 * command that works against *this* process (its PORT, DATA_DIR… — the token is signed with its
 * key and for its audience).
 */
export function bannerLines(f: BannerFacts): string[] {
  const { config } = f;
  const lines = [
    `Kadu listening on http://${f.listening.host}:${f.listening.port} (public URL ${config.publicBaseUrl})`,
    `Topology: ${topology(config)}`,
  ];
  lines.push(`MCP endpoint: ${config.publicBaseUrl}/mcp`, `REST API:     ${config.publicBaseUrl}/api/v1`);
  lines.push(`Metrics:      ${f.metricsUrl ?? 'off (OTEL_METRICS_EXPORTER=prometheus serves them on their own port)'}`);
  lines.push(`Traces:       ${f.traces ?? 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to export them)'}`);
  lines.push(`Data folder:  ${config.dataDir}`);
  if (config.devAuthServer) {
    lines.push(
      `Development authorization server: ${config.oauthIssuer} (MCP clients sign in with OAuth; no token to paste)`,
    );
  }
  if (config.devTokens) {
    lines.push('Development tokens are on. Get one with:');
    lines.push(`  ${tokenCommand(f)}`);
  }
  return lines;
}

function topology(config: AppConfig): string {
  if (!config.databaseUrl && !config.redis)
    return 'embedded (PGlite in the data folder, in-process queue, state in memory)';
  const parts = [
    config.databaseUrl
      ? `PostgreSQL ${where(config.databaseUrl)}${config.databaseSchema ? ` schema ${config.databaseSchema}` : ''}`
      : 'PGlite in the data folder',
    config.redis
      ? `${describeRedis(config.redis)} prefix ${config.redisPrefix} (state store and BullMQ queue)`
      : 'in-process queue, state in memory',
  ];
  return `distributed (${parts.join('; ')})`;
}

/** host:port/path of a URL, without its credentials. */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? 6379 : 5432)}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** The variables the token command must share with this process, and only those that differ from the defaults. */
function tokenCommand(f: BannerFacts): string {
  const { config, env } = f;
  const vars: string[] = [];
  const set = (name: string, value: string | undefined) =>
    value !== undefined && vars.push(`${name}=${shellQuote(value)}`);
  if (config.port !== 3000) set('PORT', String(config.port));
  if (config.dataDir !== resolve('./data')) set('DATA_DIR', config.dataDir);
  for (const name of ['PUBLIC_BASE_URL', 'OAUTH_ISSUER', 'MCP_AUDIENCE', 'API_AUDIENCE', 'DEV_SIGNING_KEY_FILE'])
    set(name, env[name] || undefined);
  // The inline key is a secret: the command refers to the variable instead of printing it.
  if (env.DEV_SIGNING_KEY) vars.push('DEV_SIGNING_KEY="$DEV_SIGNING_KEY"');
  return [...vars, 'npm run -s token -- --org acme --user ana@acme.test --role admin'].join(' ');
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
