import request from 'supertest';
import { legacyRequest, modernRequest } from '@app/mcp/testing/index.js';
import type { DevTokenRequest } from '../../src/auth/dev-token.js';
import type { KaduTestApp } from './kadu-app.js';

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

  async rest(method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string, body?: unknown, headers: Record<string, string> = {}) {
    this.apiToken ??= await this.kadu.token({ ...this.who, audience: 'api' });
    const req = request(this.kadu.server)[method](path).set('Authorization', `Bearer ${this.apiToken}`).set(headers);
    return body === undefined ? req : req.send(body as object);
  }

  /** Calls a tool and parses the JSON of its text content. */
  async tool(era: Era, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    const res = await this.mcp(era, 'tools/call', { name, arguments: args });
    if (res.status !== 200 || res.body.error) throw new Error(`tools/call ${name} answered ${res.status} ${res.text}`);
    const result = res.body.result as Record<string, unknown>;
    const text = (result.content as { type: string; text: string }[]).find((c) => c.type === 'text')?.text;
    return { isError: result.isError === true, body: text ? JSON.parse(text) : undefined, result };
  }

  async mcp(era: Era, method: string, params: Record<string, unknown> = {}) {
    this.mcpToken ??= await this.kadu.token({ ...this.who, audience: 'mcp' });
    const r = era === '2026' ? modernRequest(method, params) : legacyRequest(method, params);
    return request(this.kadu.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${this.mcpToken}`).send(r.body);
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
  async waitForExecution(id: string, done: (e: any) => boolean = (e) => !['queued', 'running'].includes(e.status)): Promise<any> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await this.rest('get', `/api/v1/executions/${id}`);
      if (res.status === 200 && done(res.body.data)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`execution ${id} still ${res.body.data?.status}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
