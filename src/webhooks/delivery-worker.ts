import { createHmac, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { SecretBox } from '../common/secret-box.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE, type Database } from '../db/database.js';
import { recordWebhookAttempt } from '../telemetry/kadu-metrics.js';
import { inNoTrace, traceDeliveryAttempt } from '../telemetry/webhook-span.js';
import { pinnedLookup } from '../common/address-policy.js';
import { checkWebhookUrl } from './ssrf.js';
import type { DeliveryRow } from './webhook.view.js';
import { describeValue } from '@kobana/nest-mcp';

export const WEBHOOK_SECRET_BOX = Symbol('WEBHOOK_SECRET_BOX');

interface Attempt {
  status?: number;
  error?: string;
  retry: boolean;
}

type ClaimedDelivery = DeliveryRow & { url: string; secret_sealed: string; claim_token: string };

/**
 * Delivers pending webhook deliveries: signed (`X-Kadu-Signature: sha256=<hex HMAC of the raw
 * body>`), with a timeout, retried with exponential backoff on 5xx, timeouts and network errors,
 * never on 4xx. Each attempt re-checks the URL against SSRF after resolving it, and connects to
 * the checked address.
 *
 * Every replica runs this worker. An attempt is claimed before it is made (`FOR UPDATE SKIP
 * LOCKED`, then a lease in `claimed_until`), so each scheduled attempt is made by one replica only;
 * the outcome is written only under the claim that made it. A replica that dies mid-attempt leaves
 * a claim that lapses, and the attempt is made again: receivers de-duplicate on X-Kadu-Delivery.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SECRET_BOX) private readonly box: SecretBox,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), Math.max(50, Math.min(1000, this.config.webhookRetryBaseMs)));
    this.timer.unref();
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running) await new Promise((r) => setTimeout(r, 10));
  }

  /** Asks for a pass over due deliveries now (they are also picked up by a timer). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void inNoTrace(() => this.drain()).finally(() => {
      this.running = false;
      if (this.again && !this.stopped) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      await Promise.all((await this.claim()).map((d) => traceDeliveryAttempt(d, () => this.deliver(d))));
    } catch (error) {
      this.logger.warn(`delivery pass failed: ${describeValue(error)}`);
    }
  }

  /**
   * Claims up to 20 due attempts for this replica. Rows another replica is claiming are skipped,
   * not waited for; the lease outlasts one attempt (its timeout twice, plus margin).
   *
   * Most passes (one a second) find nothing due: a read of the same condition answers that without
   * the claim's update, a write. In the embedded topology that update was most of an idle app's
   * CPU (~10 ms a pass in PGlite, against ~3 for the read; bench/RESULTS.md, w34kadu). A row that
   * falls due just after the read waits for the next pass, as one due just after the claim did.
   */
  private async claim(): Promise<ClaimedDelivery[]> {
    const [due] = await this.db.query<{ due: number }>(
      `select 1 as due from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now() and (claimed_until is null or claimed_until < now())
        limit 1`,
    );
    if (!due) return [];
    const leaseMs = 2 * this.config.webhookTimeoutMs + 10_000;
    return this.db.query<ClaimedDelivery>(
      `with due as (
         select id from webhook_deliveries
          where status = 'pending' and next_attempt_at <= now() and (claimed_until is null or claimed_until < now())
          order by next_attempt_at limit 20
          for update skip locked
       )
       update webhook_deliveries d set claim_token = $1, claimed_until = now() + ($2::int * interval '1 millisecond')
         from due, webhooks w
        where d.id = due.id and w.id = d.webhook_id
       returning d.*, w.url, w.secret_sealed`,
      [randomUUID(), leaseMs],
    );
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify({ id: delivery.id, ...(delivery.payload as object) });
    const secret = this.box.open(delivery.secret_sealed);
    const outcome = await this.post(delivery, body, secret);
    const attempts = delivery.attempts + 1;
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const retry = !ok && outcome.retry && attempts < this.config.webhookMaxAttempts;
    const status = ok ? 'delivered' : retry ? 'pending' : 'failed';
    const delay = this.config.webhookRetryBaseMs * 2 ** (attempts - 1);
    recordWebhookAttempt(ok ? 'delivered' : retry ? 'retry' : 'failed', outcome.status);
    await this.db.query(
      `update webhook_deliveries set status = $2, attempts = $3, response_code = $4, last_error = $5, updated_at = now(),
              next_attempt_at = case when $2 = 'pending' then now() + ($6::int * interval '1 millisecond') else null end,
              claim_token = null, claimed_until = null
        where id = $1 and claim_token = $7`,
      [delivery.id, status, attempts, outcome.status ?? null, outcome.error ?? null, delay, delivery.claim_token],
    );
  }

  private async post(delivery: ClaimedDelivery, body: string, secret: string): Promise<Attempt> {
    const check = await checkWebhookUrl(delivery.url, this.config.webhookAllowLoopback);
    if (!check.ok) return { error: `refused: ${check.reason}`, retry: false };
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const send = check.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Attempt>((resolve) => {
      const req = send(
        check.url,
        {
          method: 'POST',
          // Connect to the address that passed the check, whatever DNS says now.
          lookup: pinnedLookup(check.address, check.family),
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'User-Agent': 'Kadu-Webhooks/1.0',
            'X-Kadu-Event': delivery.event,
            'X-Kadu-Delivery': delivery.id,
            'X-Kadu-Delivery-Attempt': String(delivery.attempts + 1),
            'X-Kadu-Signature': signature,
          },
          timeout: this.config.webhookTimeoutMs,
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode, retry: (res.statusCode ?? 500) >= 500 || res.statusCode === 429 }),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => resolve({ error: error.message, retry: true }));
      req.end(body);
    });
  }
}
