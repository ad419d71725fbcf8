import { Inject, Injectable } from '@nestjs/common';
import { McpArg, McpCaller, McpCompletion } from '@kobana/nest-mcp';
import { IsString, MaxLength } from 'class-validator';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { DATABASE, type Database } from '../db/database.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { EXECUTION_STEPS_URI_TEMPLATE, EXECUTION_URI_TEMPLATE } from '../executions/execution-uri.js';
import { FILE_URI_TEMPLATE } from '../files/file-uri.js';

const VALUE = { validators: [IsString(), MaxLength(64)] };
const LIMIT = 101; // one more than MCP returns, so hasMore is exact up to the cap

/**
 * Completions of ids from the caller's organisation, by prefix — for template `{id}` variables and
 * prompt id arguments — and of months for `kadu_cost_review`. Nothing from another org is offered.
 */
@Injectable()
export class KaduCompletionsService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
  ) {}

  @McpCompletion({ ref: { type: 'ref/resource', uri: 'kobana://kadu/tasks/{id}' }, argument: 'id' })
  @McpCompletion({ ref: { type: 'ref/prompt', name: 'kadu_run_task' }, argument: 'task_id' })
  tasks(@McpCaller() principal: KaduPrincipal, @McpArg('value', VALUE) value: string): Promise<string[]> {
    return this.ids(principal, 'tasks', value, true);
  }

  @McpCompletion({ ref: { type: 'ref/resource', uri: EXECUTION_URI_TEMPLATE }, argument: 'id' })
  @McpCompletion({ ref: { type: 'ref/resource', uri: EXECUTION_STEPS_URI_TEMPLATE }, argument: 'id' })
  @McpCompletion({ ref: { type: 'ref/prompt', name: 'kadu_diagnose_execution' }, argument: 'execution_id' })
  executions(@McpCaller() principal: KaduPrincipal, @McpArg('value', VALUE) value: string): Promise<string[]> {
    return this.ids(principal, 'executions', value, false);
  }

  @McpCompletion({ ref: { type: 'ref/resource', uri: FILE_URI_TEMPLATE }, argument: 'id' })
  files(@McpCaller() principal: KaduPrincipal, @McpArg('value', VALUE) value: string): Promise<string[]> {
    return this.ids(principal, 'files', value, true);
  }

  @McpCompletion({ ref: { type: 'ref/resource', uri: 'kobana://kadu/webhooks/{id}' }, argument: 'id' })
  @McpCompletion({ ref: { type: 'ref/prompt', name: 'kadu_debug_webhook' }, argument: 'webhook_id' })
  webhooks(@McpCaller() principal: KaduPrincipal, @McpArg('value', VALUE) value: string): Promise<string[]> {
    return this.ids(principal, 'webhooks', value, true);
  }

  @McpCompletion({ ref: { type: 'ref/resource', uri: 'kobana://kadu/webhook_deliveries/{id}' }, argument: 'id' })
  deliveries(@McpCaller() principal: KaduPrincipal, @McpArg('value', VALUE) value: string): Promise<string[]> {
    return this.ids(principal, 'webhook_deliveries', value, false);
  }

  @McpCompletion({ ref: { type: 'ref/prompt', name: 'kadu_cost_review' }, argument: 'period' })
  months(@McpArg('value', VALUE) value: string): string[] {
    const now = new Date();
    const months = Array.from({ length: 12 }, (_, i) => {
      const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
      return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    });
    return months.filter((m) => m.startsWith(value));
  }

  private async ids(
    principal: KaduPrincipal,
    table: 'tasks' | 'executions' | 'files' | 'webhooks' | 'webhook_deliveries',
    prefix: string,
    softDeleted: boolean,
  ): Promise<string[]> {
    const ctx = await this.orgs.of(principal);
    // A prefix is matched literally: LIKE wildcards in it match nothing special.
    const literal = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.db.query<{ id: string }>(
      `select id from ${table} where org_id = $1 ${softDeleted ? 'and deleted_at is null' : ''} and id like $2 order by id desc limit ${LIMIT}`,
      [ctx.orgId, `${literal}%`],
    );
    return rows.map((r) => r.id);
  }
}
