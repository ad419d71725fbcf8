import { createServer, type Server } from 'node:http';
import { RemoteClient } from '../support/remote-client.js';
import { ReplicaSet } from '../support/replicas.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { postgres, redis, requires } from '../support/infrastructure.js';

/**
 * Issue 14: every replica runs the delivery worker, yet each scheduled attempt reaches the
 * receiver exactly once — with 1, 2 and 3 replicas, a receiver that takes 2.5 s to answer, and a
 * retry after a failed first attempt.
 */
const shared = requires(await postgres(), await redis());
let s3: S3TestServer;
let set: ReplicaSet;
let client: RemoteClient;

/** Counts POSTs per delivery and attempt; fails every first attempt, answers after `delayMs`. */
class SlowReceiver {
  readonly posts: { delivery: string; attempt: string; hook: string }[] = [];
  private readonly server: Server;
  url = '';

  constructor(private readonly delayMs: number) {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const delivery = String(req.headers['x-kadu-delivery']);
        const attempt = String(req.headers['x-kadu-delivery-attempt']);
        this.posts.push({ delivery, attempt, hook: req.url ?? '' });
        setTimeout(() => {
          res.statusCode = attempt === '1' ? 500 : 200;
          res.end();
        }, this.delayMs);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receiver = new SlowReceiver(2500);

shared.describe('replicas: webhooks', () => {
  beforeAll(async () => {
    await receiver.start();
    s3 = await startS3Server();
    // Deliveries retried 200 ms after a failure; every worker looks for due attempts every 200 ms.
    set = await ReplicaSet.start({ count: 1, s3, env: { WEBHOOK_RETRY_BASE_MS: '200' } });
    client = new RemoteClient(set.url, await set.token(), await set.token({ audience: 'api' }));
  }, 120_000);

  afterAll(async () => {
    await set?.stop();
    await s3?.close();
    await receiver.stop();
  });

  async function deliveriesOf(webhookId: string): Promise<{ id: string; status: string; attempts: number }[]> {
    return (await client.rest('get', `/api/v1/webhook_deliveries?webhook_id=${webhookId}&limit=100`)).body.data;
  }

  /** Six executions announced to one webhook; returns POSTs per scheduled attempt once all are delivered. */
  async function round(replicas: number): Promise<number> {
    while (set.replicas.length < replicas) await set.add();
    const hookPath = `/hook-${replicas}`;
    const hook = (
      await client.rest('post', '/api/v1/webhooks', {
        url: `${receiver.url}${hookPath}`,
        events: ['execution.succeeded'],
      })
    ).body.data;
    const task = (await client.rest('post', '/api/v1/tasks', { name: `notify ${replicas}`, kind: 'echo', cost_cap: 1 }))
      .body.data;
    await client.rest('put', `/api/v1/tasks/${task.id}/destinations`, {
      destinations: [{ type: 'webhook', webhook_id: hook.id }],
    });
    for (let i = 0; i < 6; i++) {
      const run = await client.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { i } });
      expect(run.status).toBe(202);
      await client.waitForExecution(run.body.data.id);
    }
    const deadline = Date.now() + 60_000;
    let log = await deliveriesOf(hook.id);
    while (!(log.length === 6 && log.every((d) => d.status === 'delivered'))) {
      if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(log)}\n${set.logs()}`);
      await new Promise((r) => setTimeout(r, 200));
      log = await deliveriesOf(hook.id);
    }
    // Long enough for any other worker that had also picked an attempt up to have sent it (they poll every 200 ms).
    await new Promise((r) => setTimeout(r, 1500));
    const posts = receiver.posts.filter((p) => p.hook === hookPath);
    const scheduled = log.reduce((sum, d) => sum + d.attempts, 0);
    expect(scheduled).toBe(12); // every delivery: a failed first attempt, then a delivered second
    expect(new Set(posts.map((p) => `${p.delivery}#${p.attempt}`)).size).toBe(posts.length);
    for (const d of log)
      expect(
        posts
          .filter((p) => p.delivery === d.id)
          .map((p) => p.attempt)
          .sort(),
      ).toEqual(['1', '2']);
    return posts.length / scheduled;
  }

  it('one POST per scheduled attempt with 1, 2 and 3 replicas', async () => {
    const ratios = [];
    for (const replicas of [1, 2, 3]) ratios.push(await round(replicas));
    expect(ratios).toEqual([1, 1, 1]);
  }, 240_000);
});
