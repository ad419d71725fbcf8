import { modernRequest } from './requests.js';

/** The `_meta` key of a listen stream's messages that carries the subscription id (the listen request's id). */
export const SUB = 'io.modelcontextprotocol/subscriptionId';

/** One message of a listen stream, as JSON-RPC. */
export type StreamMessage = {
  jsonrpc: '2.0';
  method?: string;
  id?: string | number;
  params?: any;
  result?: any;
  error?: any;
};

/**
 * A `subscriptions/listen` stream opened over raw HTTP (fetch), read event by event: what a client
 * without SDK support sees. `status`/`contentType` are the answer's; a refusal's JSON body is `refusal`.
 */
export class ListenStream {
  readonly messages: StreamMessage[] = [];
  /** Raw SSE lines that are comments (heartbeats). */
  readonly comments: string[] = [];
  status = 0;
  contentType = '';
  /** The answer's `Retry-After` header, when it has one. */
  retryAfter?: string;
  refusal?: StreamMessage;
  /** Resolves when the server ends the stream (or the connection drops). */
  ended!: Promise<void>;
  private readonly abort = new AbortController();
  private waiters: (() => void)[] = [];

  /** Opens a stream on `<baseUrl><path>` (path default `/mcp`) with a bearer token. */
  static async open(
    baseUrl: string,
    token: string,
    notifications: Record<string, unknown>,
    id: string | number = `listen-${Date.now()}`,
    { path = '/mcp' }: { path?: string } = {},
  ): Promise<ListenStream> {
    const stream = new ListenStream();
    const r = modernRequest('subscriptions/listen', { notifications }, { id });
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { ...r.headers, Authorization: `Bearer ${token}` },
      body: JSON.stringify(r.body),
      signal: stream.abort.signal,
    });
    stream.status = res.status;
    stream.contentType = res.headers.get('content-type') ?? '';
    stream.retryAfter = res.headers.get('retry-after') ?? undefined;
    if (!stream.contentType.startsWith('text/event-stream')) {
      stream.refusal = (await res.json()) as StreamMessage;
      stream.ended = Promise.resolve();
      return stream;
    }
    stream.ended = stream.read(res.body!);
    return stream;
  }

  /** Waits for the first message (from `from` on) that `match` accepts. */
  async next(match: (m: StreamMessage) => boolean, what: string, timeoutMs = 20_000, from = 0): Promise<StreamMessage> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found) return found;
      if (performance.now() > deadline)
        throw new Error(`${what}: not on the stream in ${timeoutMs} ms; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The client closes the stream (ends the subscription). */
  close(): void {
    this.abort.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of event.split('\n')) {
            if (line.startsWith(':')) this.comments.push(line);
            else if (line.startsWith('data: ')) this.messages.push(JSON.parse(line.slice(6)) as StreamMessage);
          }
        }
        for (const wake of this.waiters.splice(0)) wake();
      }
    } catch {
      // aborted by close(), or the connection dropped
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}
