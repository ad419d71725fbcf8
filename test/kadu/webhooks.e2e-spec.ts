import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, KaduClient } from '../support/kadu-client.js';
import { signatureOf, WebhookReceiver } from '../support/webhook-receiver.js';

/** Webhooks: signed deliveries of execution events, retries, the delivery log, replay, SSRF checks. */
let kadu: KaduTestApp;
let admin: KaduClient;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  kadu = await startKadu({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_BASE_MS: '50' });
  admin = new KaduClient(kadu);
});
afterAll(async () => {
  await kadu.close();
  await receiver.stop();
});

async function deliveriesOf(webhookId: string) {
  return (await admin.rest('get', `/api/v1/webhook_deliveries?webhook_id=${webhookId}`)).body.data;
}

async function waitForDelivery(webhookId: string, status: string, count = 1) {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const list = (await deliveriesOf(webhookId)).filter((d: { status: string }) => d.status === status);
    if (list.length >= count) return list;
    if (performance.now() > deadline) throw new Error(`no ${status} delivery`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('delivers execution events signed, retries after a 500, and replays to the current URL', async () => {
  const hook = await admin.rest('post', '/api/v1/webhooks', { url: receiver.url, events: ['execution.succeeded'] });
  expect(hook.status).toBe(201);
  const secret = hook.body.data.secret as string;
  expect(secret).toMatch(/^whsec_/);
  expect((await admin.rest('get', `/api/v1/webhooks/${hook.body.data.id}`)).body.data.secret).toBeUndefined();

  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'notify', kind: 'echo', cost_cap: 5 })).body.data;
  expect(
    (
      await admin.rest('put', `/api/v1/tasks/${task.id}/destinations`, {
        destinations: [{ type: 'webhook', webhook_id: hook.body.data.id }],
      })
    ).status,
  ).toBe(200);

  receiver.script = [500];
  const run = await admin.rest('post', `/api/v1/tasks/${task.id}/run`, { input: { hello: 'world' } });
  const [failedAttempt, delivered] = await receiver.waitFor(2);
  for (const attempt of [failedAttempt!, delivered!]) {
    expect(attempt.headers['x-kadu-signature']).toBe(signatureOf(secret, attempt.raw));
    expect(attempt.headers['x-kadu-event']).toBe('execution.succeeded');
  }
  expect(delivered!.body).toMatchObject({
    event: 'execution.succeeded',
    data: { execution: { id: run.body.data.id, status: 'succeeded', output: { hello: 'world' } } },
  });
  const [log] = await waitForDelivery(hook.body.data.id, 'delivered');
  expect(log).toMatchObject({ attempts: 2, response_code: 200, event: 'execution.succeeded' });

  const replay = await admin.rest('post', `/api/v1/webhook_deliveries/${log.id}/replay`);
  expect(replay.status).toBe(202);
  expect(replay.body.data).toMatchObject({ replay_of: log.id, status: 'pending' });
  const all = await receiver.waitFor(3);
  expect(all[2]!.body.id).toBe(replay.body.data.id);
  expect(all[2]!.headers['x-kadu-signature']).toBe(signatureOf(secret, all[2]!.raw));

  const rotated = await admin.rest('post', `/api/v1/webhooks/${hook.body.data.id}/rotate_secret`);
  expect(rotated.body.data.secret).not.toBe(secret);
});

it('gives up after the configured attempts and records the failure; 4xx is not retried', async () => {
  const hook = (await admin.rest('post', '/api/v1/webhooks', { url: receiver.url })).body.data;
  const task = (await admin.rest('post', '/api/v1/tasks', { name: 'n', kind: 'echo', cost_cap: 5 })).body.data;
  await admin.rest('put', `/api/v1/tasks/${task.id}/destinations`, {
    destinations: [{ type: 'webhook', webhook_id: hook.id }],
  });
  const before = receiver.received.length;
  receiver.script = [410];
  await admin.rest('post', `/api/v1/tasks/${task.id}/run`, {});
  const [failed] = await waitForDelivery(hook.id, 'failed');
  expect(failed).toMatchObject({ attempts: 1, response_code: 410 });
  expect(receiver.received.length).toBe(before + 1);
});

describe('server-side request forgery', () => {
  it.each([
    'http://10.0.0.8/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://192.168.1.1/',
    'http://[::ffff:10.0.0.1]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
  ])('refuses %s at creation as url_not_allowed, storing nothing', async (url) => {
    const before = (await admin.rest('get', '/api/v1/webhooks?limit=100')).body.data.length;
    const res = await admin.rest('post', '/api/v1/webhooks', { url });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('url_not_allowed');
    expect((await admin.rest('get', '/api/v1/webhooks?limit=100')).body.data.length).toBe(before);
  });

  it('refuses a scheme other than http(s) as invalid input', async () => {
    const res = await admin.rest('post', '/api/v1/webhooks', { url: 'ftp://example.com/' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: 'validation_failed' });
  });

  it('refuses loopback unless configured, at creation and again at delivery', async () => {
    const strict = await startKadu({ WEBHOOK_RETRY_BASE_MS: '50' });
    try {
      const client = new KaduClient(strict);
      const res = await client.rest('post', '/api/v1/webhooks', { url: receiver.url });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].code).toBe('url_not_allowed');

      // A webhook whose address turned private after creation (DNS changed): delivery re-checks and refuses.
      const hook = (await client.rest('post', '/api/v1/webhooks', { url: 'http://93.184.216.34/hook' })).body.data;
      const { DATABASE } = await import('../../src/db/database.js');
      const db = strict.app.get(DATABASE) as import('../../src/db/database.js').Database;
      await db.query(`update webhooks set url = $2 where id = $1`, [hook.id, receiver.url]);
      const [{ org_id }] = await db.query<{ org_id: string }>('select org_id from webhooks where id = $1', [hook.id]);
      await db.query(
        `insert into webhook_deliveries (id, org_id, webhook_id, event, payload, status, next_attempt_at)
         values ('0190c0de-0000-7000-8000-000000000001', $1, $2, 'execution.succeeded', '{}'::jsonb, 'pending', now())`,
        [org_id, hook.id],
      );
      const before = receiver.received.length;
      const deadline = performance.now() + 5000;
      let delivery: { status: string; last_error: string; attempts: number } | undefined;
      while (performance.now() < deadline) {
        delivery = (await client.rest('get', '/api/v1/webhook_deliveries/0190c0de-0000-7000-8000-000000000001')).body
          .data;
        if (delivery?.status !== 'pending') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_error: expect.stringMatching(/^refused: .*loopback/),
      });
      expect(receiver.received.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});

describe.each(ERAS)('tools (%s)', (era) => {
  it('list and get webhooks and deliveries; destructive ones wait for confirmation', async () => {
    // Its own webhook and delivery: nothing here depends on what earlier tests left behind.
    const hook = (await admin.rest('post', '/api/v1/webhooks', { url: receiver.url })).body.data;
    const task = (await admin.rest('post', '/api/v1/tasks', { name: `tools-${era}`, kind: 'echo', cost_cap: 5 })).body
      .data;
    await admin.rest('put', `/api/v1/tasks/${task.id}/destinations`, {
      destinations: [{ type: 'webhook', webhook_id: hook.id }],
    });
    receiver.script = [];
    await admin.rest('post', `/api/v1/tasks/${task.id}/run`, {});
    const [delivery] = await waitForDelivery(hook.id, 'delivered');

    const listed = await admin.tool(era, 'kadu_webhooks_list', {});
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    expect((await admin.tool(era, 'kadu_webhooks_get', { webhook_id: hook.id })).body.data.url).toBe(receiver.url);
    const deliveries = await admin.tool(era, 'kadu_webhook_deliveries_list', {
      webhook_id: hook.id,
      status: 'delivered',
    });
    expect(deliveries.isError).toBe(false);
    expect(deliveries.body.data.map((d: { id: string }) => d.id)).toEqual([delivery.id]);
    const got = await admin.tool(era, 'kadu_webhook_deliveries_get', { delivery_id: delivery.id });
    expect(got.body.data).toMatchObject({
      id: delivery.id,
      webhook_id: hook.id,
      status: 'delivered',
      event: 'execution.succeeded',
    });
    for (const [name, args] of [
      ['kadu_webhooks_create', { url: receiver.url }],
      ['kadu_webhooks_update', { webhook_id: hook.id, active: false }],
      ['kadu_webhooks_delete', { webhook_id: hook.id }],
      ['kadu_webhooks_rotate_secret', { webhook_id: hook.id }],
      ['kadu_webhook_deliveries_replay', { delivery_id: delivery.id }],
    ] as const) {
      const res = await admin.tool(era, name, args);
      expect(res.body.error.code, name).toMatch(/^approval_(required|pending)$/);
    }
    expect((await admin.rest('get', `/api/v1/webhooks/${hook.id}`)).body.data.active).toBe(true);
    expect((await deliveriesOf(hook.id)).map((d: { id: string }) => d.id)).toEqual([delivery.id]);
  });
});
