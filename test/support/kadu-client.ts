import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import type { DevTokenRequest } from '../../src/auth/dev-token.js';
import type { KaduTestApp } from './kadu-app.js';
import { decide } from './approvals.js';
import { settled, waitForExecution } from './executions.js';

export type Era = '2026' | '2025';
export const ERAS: Era[] = ['2026', '2025'];

export interface ToolOutcome {
  isError: boolean;
  body: any;
  result: Record<string, unknown>;
}

/** Drives one Kadu app through both doors as a given member. */
export class KaduClient {
  private mcpToken?: string;
  private apiToken?: string;

  constructor(
    private readonly kadu: KaduTestApp,
    private readonly who: Partial<DevTokenRequest> = {},
  ) {}

  as(who: Partial<DevTokenRequest>): KaduClient {
    return new KaduClient(this.kadu, { ...this.who, ...who });
  }

  async rest(
    method: 'get' | 'post' | 'patch' | 'put' | 'delete',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    this.apiToken ??= await this.kadu.token({ ...this.who, audience: 'api' });
    const req = request(this.kadu.server)[method](path).set('Authorization', `Bearer ${this.apiToken}`).set(headers);
    return body === undefined ? req : req.send(body as object);
  }

  /** Calls a tool and parses the JSON of its text content. */
  async tool(era: Era, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    return this.outcome(name, await this.mcp(era, 'tools/call', { name, arguments: args }));
  }

  /**
   * Calls a tool and, when it asks for the person's confirmation, gives it as they would: accepting
   * the elicitation (2026) or pressing Continue on the approval page (2025), then retrying once.
   */
  async confirmedTool(era: Era, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    if (era === '2026') {
      const form = { elicitation: {} };
      const first = await this.mcp(era, 'tools/call', { name, arguments: args }, form);
      const ask = first.body.result;
      if (ask?.resultType !== 'input_required') return this.outcome(name, first);
      const accept = { confirm: { action: 'accept', content: { confirm: true } } };
      return this.outcome(
        name,
        await this.mcp(
          era,
          'tools/call',
          { name, arguments: args, requestState: ask.requestState, inputResponses: accept },
          form,
        ),
      );
    }
    const first = await this.tool(era, name, args);
    if (first.body?.error?.code !== 'approval_required') return first;
    const decided = await decide(this.kadu.server, first.body.error.approval_url, 'approve');
    if (decided.status !== 200) throw new Error(`approval of ${name} answered ${decided.status}`);
    return this.tool(era, name, args);
  }

  private outcome(name: string, res: request.Response): ToolOutcome {
    if (res.status !== 200 || res.body.error) throw new Error(`tools/call ${name} answered ${res.status} ${res.text}`);
    const result = res.body.result as Record<string, unknown>;
    const text = (result.content as { type: string; text: string }[]).find((c) => c.type === 'text')?.text;
    return { isError: result.isError === true, body: text ? JSON.parse(text) : undefined, result };
  }

  async mcp(era: Era, method: string, params: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) {
    this.mcpToken ??= await this.kadu.token({ ...this.who, audience: 'mcp' });
    const r = era === '2026' ? modernRequest(method, params, { capabilities }) : legacyRequest(method, params);
    return request(this.kadu.server)
      .post('/mcp')
      .set(r.headers)
      .set('Authorization', `Bearer ${this.mcpToken}`)
      .send(r.body);
  }

  async listTools(era: Era): Promise<Record<string, any>[]> {
    const tools: Record<string, any>[] = [];
    let cursor: string | undefined;
    do {
      const res = await this.mcp(era, 'tools/list', cursor ? { cursor } : {});
      tools.push(...res.body.result.tools);
      cursor = res.body.result.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Polls an execution until `done` says so (the worker runs in the background). */
  waitForExecution(id: string, done: (e: any) => boolean = settled): Promise<any> {
    return waitForExecution(this, id, done);
  }
}
