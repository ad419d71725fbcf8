import { CONFIG_SLICES } from './app-config.js';
import { settingsOf } from './schema/env-schema.js';

/** What each slice is about, as the configuration table's headings say it. */
const DOMAINS: Record<(typeof CONFIG_SLICES)[number]['namespace'], string> = {
  http: 'HTTP',
  runtime: 'Process, data folder and logs',
  auth: 'Access tokens',
  oauth: 'Development authorization server',
  database: 'PostgreSQL',
  redis: 'Redis',
  mcp: 'MCP state and `subscriptions/listen`',
  files: 'Files and S3',
  executions: 'Executions and their queue',
  webhooks: 'Webhooks',
  limits: 'Rate limits',
};

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/**
 * The configuration table of docs/operators/configuration.md, one table per slice, from the schema
 * (`scripts/config-table.mjs` writes it; `config-table.spec.ts` fails when the page differs).
 */
export function renderConfigTable(): string {
  const sections = CONFIG_SLICES.map((slice) => {
    const rows = settingsOf(slice.schema).map(
      (s) => `| \`${s.name}\` | ${cell(s.defaultText)} | ${cell(s.allowed)} | ${cell(s.meaning)} |`,
    );
    return [
      `### ${DOMAINS[slice.namespace]}`,
      '',
      `\`registerAs('${slice.namespace}')\`: inject \`${slice.namespace}Config.KEY\`.`,
      '',
      '| variable | default | allowed | meaning |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
  });
  const telemetry = [
    '### Telemetry',
    '',
    '`OTEL_*` and `KADU_OTEL_CONTEXT_MANAGER` (telemetry off by default): OpenTelemetry, read by `src/telemetry`, see [Operating Kadu](operating.md#traces-and-metrics-opentelemetry).',
  ].join('\n');
  return [...sections, telemetry].join('\n\n') + '\n';
}
