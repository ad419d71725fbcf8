import { legacyRequest, modernRequest, type ModernRequestOptions } from '@kobana/nest-mcp/testing';
import { SERVED_BY } from './balancer.js';
import { settled, waitForExecution } from './executions.js';

export interface RemoteResponse {
  status: number;
  headers: Headers;
  body: any;
  /** The replica that answered (the balancer says), when it went through the balancer. */
  servedBy?: string;
  /** Wall time from sending to the whole answer. */
  ms: number;
}

/** Drives a deployment over real HTTP (the balancer's URL, or one replica's) with one token per door. */
export class RemoteClient {
  constructor(
    readonly baseUrl: string,
    private readonly mcpToken: string,
    private readonly apiToken: string,
    private readonly timeoutMs = 15_000,
  ) {}

  /** The same member, talking to another address (one replica, say). */
  at(baseUrl: string): RemoteClient {
    return new RemoteClient(baseUrl, this.mcpToken, this.apiToken, this.timeoutMs);
  }

  rest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RemoteResponse> {
    return this.send(path, {
      method: method.toUpperCase(),
      headers: {
        Authorization: `Bearer ${this.apiToken}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  mcp(
    era: '2026' | '2025',
    method: string,
    params: Record<string, unknown> = {},
    options: ModernRequestOptions = {},
  ): Promise<RemoteResponse> {
    const r =
      era === '2026' ? modernRequest(method, params, options) : legacyRequest(method, params, { id: options.id });
    return this.send('/mcp', {
      method: 'POST',
      headers: { ...r.headers, Authorization: `Bearer ${this.mcpToken}` },
      body: JSON.stringify(r.body),
    });
  }

  /** Calls a tool and parses the JSON of its text content; throws on a JSON-RPC or HTTP error. */
  async tool(
    era: '2026' | '2025',
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<{ isError: boolean; body: any; response: RemoteResponse }> {
    const response = await this.mcp(era, 'tools/call', { name, arguments: args });
    if (response.status !== 200 || response.body?.error)
      throw new Error(`tools/call ${name} answered ${response.status} ${JSON.stringify(response.body)}`);
    const text = (response.body.result.content as { type: string; text: string }[]).find(
      (c) => c.type === 'text',
    )?.text;
    return { isError: response.body.result.isError === true, body: text ? JSON.parse(text) : undefined, response };
  }

  /** Polls an execution until it leaves queued/running (or `done` says so). */
  waitForExecution(id: string, done: (e: any) => boolean = settled, timeoutMs = 30_000): Promise<any> {
    return waitForExecution(this, id, done, { timeoutMs, intervalMs: 100 });
  }

  private async send(path: string, init: RequestInit): Promise<RemoteResponse> {
    const started = Date.now();
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return {
      status: res.status,
      headers: res.headers,
      body,
      servedBy: res.headers.get(SERVED_BY) ?? undefined,
      ms: Date.now() - started,
    };
  }
}
