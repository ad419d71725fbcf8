import { createHmac } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InMemoryStateStore, McpConfig, type McpStateStore } from '@kobana/nest-mcp';
import { RedisStateStore } from '@kobana/nest-mcp/redis';
import type { Express, Request, Response } from 'express';
import type { default as Provider, errors as ProviderErrors } from 'oidc-provider';
import { loadOrCreateDevKey } from '../auth/dev-signing-key.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { STATE_SECRET } from '../mcp/state-key.js';
import { providerConfiguration } from './provider-configuration.js';
import { RegistrationGate } from './registration-gate.js';
import { type Frame, signInProblemPage } from './sign-in-page.js';
import { sendPage } from '@kobana/nest-mcp';

/** Where the provider's own endpoints live (authorize, token, register, jwks, …). */
export const OAUTH_PATH = '/oauth';

/**
 * The development authorization server (oidc-provider), mounted in this app under /oauth, with its
 * metadata at the issuer's well-known locations (RFC 8414, and OpenID discovery). Its state is in
 * memory when embedded and in Redis when REDIS_URL is set, so any replica serves any step; it signs
 * with the development key, so the app's own verifier accepts its tokens.
 */
@Injectable()
export class DevAuthorizationServer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DevAuthorizationServer');
  provider!: Provider;
  errors!: typeof ProviderErrors;
  private store!: McpStateStore;
  private csrfKey!: Buffer;
  private registrations!: RegistrationGate;
  private loading?: Promise<Provider>;
  private handle?: ReturnType<Provider['callback']>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly mcp: McpConfig,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(STATE_SECRET) private readonly stateSecret: string,
  ) {}

  get frame(): Frame {
    return { brand: this.mcp.pageBrand, assets: this.mcp.pageAssetsPath };
  }

  /**
   * Mounts the routes at start; oidc-provider (and Koa under it, ~15 MB and a few hundred ms of
   * imports) is loaded and built by the first request that needs it (`load`), so a replica is ready
   * without it (issue 32: start-up). Every route, and the sign-in page, waits for that one load.
   */
  onModuleInit(): void {
    const config = this.config;
    this.csrfKey = this.derive('kadu-oauth-sign-in-csrf');
    this.store = config.redis
      ? new RedisStateStore(config.redis, `${config.redisPrefix}oauth:`, { timeoutMs: config.dependencyTimeoutMs })
      : new InMemoryStateStore();
    this.registrations = new RegistrationGate(this.store, {
      perAddress: config.devRegistrationRate,
      maxClients: config.devMaxClients,
    });
    this.mount(this.adapterHost.httpAdapter.getInstance() as Express);
  }

  /** The provider, built once; a failed load is retried by the next request rather than kept. */
  load(): Promise<Provider> {
    this.loading ??= this.build().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private derive(purpose: string): Buffer {
    return createHmac('sha256', this.stateSecret).update(purpose).digest();
  }

  private async build(): Promise<Provider> {
    const config = this.config;
    // Loaded only when the server is on (like the AWS SDK): production starts never pay for it.
    const { default: ProviderClass, errors } = await import('oidc-provider');
    const key = await loadOrCreateDevKey(config);
    const provider = new ProviderClass(
      config.oauthIssuer,
      providerConfiguration({
        config,
        store: this.store,
        signingKey: key.privateJwk,
        cookieKey: this.derive('kadu-oauth-cookies').toString('base64url'),
        errors,
        onFetchRefused: (url, reason) => this.logger.warn(`not fetched ${url}: ${reason}`),
        renderError: (ctx, out) => {
          ctx.type = 'html';
          const text = out.error_description ?? out.error ?? 'The request could not be completed.';
          ctx.set(
            'Content-Security-Policy',
            "default-src 'none'; script-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
          );
          ctx.set('Referrer-Policy', 'no-referrer');
          ctx.body = signInProblemPage(
            this.frame,
            'This sign-in cannot go on',
            `${String(text)} Go back to your app and try again.`,
          );
        },
      }),
    );
    // Behind a TLS-terminating proxy (an https public URL) the provider must read the forwarded scheme.
    provider.proxy = config.publicBaseUrl.startsWith('https:');
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.status === 503) ctx.set('Retry-After', '5');
    });
    provider.on('server_error', (_ctx, error) => this.logger.error(`authorization server error: ${error.message}`));
    this.errors = errors;
    this.provider = provider;
    this.handle = provider.callback();
    return provider;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store?.close();
  }

  /** The anti-CSRF token of one sign-in (bound to its interaction id, keyed by the shared state key). */
  csrfFor(uid: string): string {
    return createHmac('sha256', this.csrfKey).update(uid).digest('base64url');
  }

  private mount(app: Express): void {
    const handle = (req: Request, res: Response, next: (error?: unknown) => void): void =>
      void this.load().then(() => this.handle!(req, res), next);
    // Open registration is limited before the provider reads the request (registration-gate.ts).
    app.post(`${OAUTH_PATH}/reg`, this.registrations.handler());
    app.use(OAUTH_PATH, (req: Request, res: Response, next: (error?: unknown) => void) => handle(req, res, next));
    // RFC 8414 (where MCP clients look first) and OpenID discovery, at the issuer's well-known locations.
    const issuerPath = new URL(this.config.oauthIssuer).pathname.replace(/\/+$/, '');
    for (const name of ['oauth-authorization-server', 'openid-configuration']) {
      app.get(`/.well-known/${name}${issuerPath}`, (req: Request, res: Response, next: (error?: unknown) => void) => {
        req.url = '/.well-known/openid-configuration';
        req.originalUrl = `${OAUTH_PATH}/.well-known/openid-configuration`;
        handle(req, res, next);
      });
    }
  }

  /** Answers a page about a sign-in that cannot go on. */
  problem(res: Response, status: number, heading: string, text: string): void {
    sendPage(res, status, signInProblemPage(this.frame, heading, text));
  }
}
