import { Inject, Injectable } from '@nestjs/common';
import { McpCaller, McpResource, McpTool } from '@kobana/nest-mcp';
import type { KaduPrincipal } from '../auth/kadu-principal.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { DATABASE, type Database } from '../db/database.js';
import { hints } from '../mcp/tool-args.js';
import { OrgContextService } from '../orgs/org-context.service.js';
import { MeEnvelope, UsageEnvelope } from './account.response.js';

/** Who the caller is, and what the organisation has spent this month. */
@Injectable()
export class AccountService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly orgs: OrgContextService,
  ) {}

  @McpResource({
    uri: 'kobana://kadu/me',
    name: 'me',
    title: 'Me',
    description: 'Your organisation, plan, member record, role and scopes.',
    mimeType: 'application/json',
    ...PERMISSIONS.me,
  })
  @McpTool({
    name: 'kadu_me_get',
    output: MeEnvelope,
    title: 'Who am I',
    description: 'Returns your organisation, plan, member record, role and token scopes.',
    annotations: hints('read', true),
    ...PERMISSIONS.me,
  })
  async me(@McpCaller() principal: KaduPrincipal) {
    const ctx = await this.orgs.of(principal);
    const [member] = await this.db.query<{ id: string; email: string; name: string; role: string }>(
      'select id, email, name, role from members where id = $1',
      [ctx.memberId],
    );
    return {
      data: {
        organization: { id: ctx.orgId, slug: ctx.slug, plan: ctx.plan },
        member: { id: member!.id, email: member!.email, name: member!.name, role: principal.role },
        scopes: principal.scopes,
      },
    };
  }

  @McpResource({
    uri: 'kobana://kadu/usage',
    name: 'usage',
    title: 'Usage',
    description: "This month's spend against the plan budget.",
    mimeType: 'application/json',
    ...PERMISSIONS.usageRead,
  })
  @McpTool({
    name: 'kadu_usage_get',
    output: UsageEnvelope,
    title: 'Usage this month',
    description: "Returns this month's spend against the plan budget and the executions queued or running.",
    annotations: hints('read', true),
    ...PERMISSIONS.usageRead,
  })
  async usage(@McpCaller() principal: KaduPrincipal) {
    const ctx = await this.orgs.of(principal);
    const [row] = await this.db.query<{ period: string; spent: number; executions: number; active: number }>(
      `select to_char(date_trunc('month', now()), 'YYYY-MM') as period,
              coalesce(sum(cost_spent) filter (where created_at >= date_trunc('month', now())), 0)::int as spent,
              count(*) filter (where created_at >= date_trunc('month', now()))::int as executions,
              count(*) filter (where status in ('queued', 'running'))::int as active
         from executions where org_id = $1`,
      [ctx.orgId],
    );
    return {
      data: {
        period: row!.period,
        spent: row!.spent,
        monthly_budget: ctx.plan.monthly_budget,
        remaining: Math.max(0, ctx.plan.monthly_budget - row!.spent),
        executions: row!.executions,
        active_executions: row!.active,
        max_concurrent_executions: ctx.plan.max_concurrent_executions,
      },
    };
  }
}
