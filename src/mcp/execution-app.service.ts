import { Injectable } from '@nestjs/common';
import { McpResource } from '@kobana/nest-mcp';
import { PERMISSIONS } from '../auth/permissions.js';
import { EXECUTION_APP_HTML } from './execution-app/app-html.js';

export const EXECUTION_APP_URI = 'ui://kadu/execution';

/**
 * The execution as an MCP App (io.modelcontextprotocol/ui): opened from kadu_tasks_run,
 * kadu_executions_get and kadu_executions_continue results. Whoever may read executions may load
 * it; what it shows comes only from the calls it makes through the host, as the caller.
 */
@Injectable()
export class ExecutionAppService {
  @McpResource({
    uri: EXECUTION_APP_URI,
    name: 'execution_app',
    title: 'Execution',
    description:
      'Shows one execution live: status, steps, cost against the cap, input requested, output files, Cancel.',
    ...PERMISSIONS.executionsRead,
    // No external origin at all: the document is self-contained.
    app: {
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
      prefersBorder: true,
    },
  })
  html(): string {
    return EXECUTION_APP_HTML;
  }
}
