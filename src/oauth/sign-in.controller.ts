import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { describeValue, formTargetOf, sendPage } from '@kobana/nest-mcp';
import type { Request, Response } from 'express';
import type { Interaction } from 'oidc-provider';
import { ALL_SCOPES } from '../auth/scopes.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { accountId, accountProblems, type DevAccount, parseAccountId } from './dev-account.js';
import { DevAuthorizationServer } from './dev-authorization-server.js';
import { INTERACTION_PATH } from './provider-configuration.js';
import { signInPage, type SignInView } from './sign-in-page.js';

const DEFAULT_ACCOUNT: DevAccount = { org: 'acme', user: 'ana@acme.test', role: 'admin' };
const OIDC_SCOPES = new Set(['openid', 'offline_access']);

const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' && value ? [value] : [];

/**
 * The development sign-in and consent page of the authorization server's interactions. GET shows
 * it and changes nothing; POST (anti-CSRF token bound to the interaction, plus the provider's own
 * interaction cookie) signs in and grants, or cancels.
 */
@Controller(INTERACTION_PATH.slice(1))
export class SignInController {
  constructor(
    private readonly server: DevAuthorizationServer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':uid')
  async show(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const interaction = await this.interaction(uid, req, res);
    if (!interaction) return;
    const session = interaction.session?.accountId ? parseAccountId(interaction.session.accountId) : undefined;
    await this.render(res, 200, interaction, { ...(session ?? DEFAULT_ACCOUNT) });
  }

  @Post(':uid')
  async submit(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const interaction = await this.interaction(uid, req, res);
    if (!interaction) return;
    const form = (req.body ?? {}) as Record<string, unknown>;
    const csrf = Buffer.from(typeof form.csrf === 'string' ? form.csrf : '');
    const expected = Buffer.from(this.server.csrfFor(interaction.uid));
    if (csrf.length !== expected.length || !timingSafeEqual(csrf, expected)) {
      return this.server.problem(
        res,
        403,
        'Refused',
        'This form did not come from the sign-in page, so nothing was changed.',
      );
    }
    if (form.decision !== 'allow') {
      await this.server.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The person chose Cancel' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const entered = {
      org: String(form.org ?? '').trim(),
      user: String(form.user ?? '')
        .trim()
        .toLowerCase(),
      role: String(form.role ?? ''),
    };
    const problems = accountProblems(entered);
    if (problems.org || problems.user || problems.role) return this.render(res, 422, interaction, entered, problems);
    const account = accountId(entered as DevAccount);
    const grantId = await this.grant(interaction, account);
    await this.server.provider.interactionFinished(
      req,
      res,
      { login: { accountId: account }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /** The interaction behind this page, or an explanatory page when it is gone or belongs to another browser. */
  private async interaction(uid: string, req: Request, res: Response): Promise<Interaction | undefined> {
    // The provider is built by the first request that needs it (dev-authorization-server.ts).
    await this.server.load();
    try {
      const interaction = await this.server.provider.interactionDetails(req, res);
      if (interaction.uid === uid) return interaction;
    } catch (error) {
      if (!(error instanceof this.server.errors.SessionNotFound)) throw error;
    }
    this.server.problem(
      res,
      400,
      'This sign-in has expired',
      'It took too long, was already finished, or was opened in another browser. Go back to your app and connect again.',
    );
    return undefined;
  }

  /**
   * Consent in the same step as sign-in: the grant covers every scope asked for each resource
   * asked for (or the default, the MCP endpoint); the tokens then carry only what the role allows.
   */
  private async grant(interaction: Interaction, account: string): Promise<string> {
    const { provider } = this.server;
    const clientId = describeValue(interaction.params.client_id);
    const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
    const grant =
      existing && existing.accountId === account ? existing : new provider.Grant({ accountId: account, clientId });
    const scopes = listOf(interaction.params.scope)
      .flatMap((s) => s.split(' '))
      .filter(Boolean);
    const kadu = scopes.filter((s) => ALL_SCOPES.includes(s));
    // Kadu's scopes are also the provider's own (clients register them), so the grant names them both ways.
    const oidc = scopes.filter((s) => OIDC_SCOPES.has(s) || ALL_SCOPES.includes(s));
    if (oidc.length) grant.addOIDCScope(oidc.join(' '));
    const resources = listOf(interaction.params.resource);
    for (const resource of resources.length ? resources : [this.config.mcpAudience])
      grant.addResourceScope(resource, kadu.join(' '));
    return grant.save();
  }

  private async render(
    res: Response,
    status: number,
    interaction: Interaction,
    account: SignInView['account'],
    problems?: SignInView['problems'],
  ): Promise<void> {
    const clientId = describeValue(interaction.params.client_id);
    const client = await this.server.provider.Client.find(clientId);
    const returnTo = typeof interaction.params.redirect_uri === 'string' ? interaction.params.redirect_uri : undefined;
    const resources = listOf(interaction.params.resource);
    const view: SignInView = {
      action: `${INTERACTION_PATH}/${interaction.uid}`,
      csrf: this.server.csrfFor(interaction.uid),
      client: {
        id: clientId,
        ...(client?.clientName ? { name: client.clientName } : {}),
        ...(/^https:\/\//.test(clientId) ? { metadataHost: new URL(clientId).host } : {}),
        ...(returnTo
          ? {
              returnTo:
                new URL(returnTo).origin === 'null'
                  ? returnTo
                  : `${new URL(returnTo).origin}${new URL(returnTo).pathname}`,
            }
          : {}),
      },
      resources: (resources.length ? resources : [this.config.mcpAudience]).map((url) => ({
        url,
        name: this.resourceName(url),
      })),
      scopes: listOf(interaction.params.scope)
        .flatMap((s) => s.split(' '))
        .filter(Boolean),
      account,
      problems,
    };
    // The answer to the form redirects to the provider, then to the client: the CSP must allow both.
    const clientTarget = returnTo ? formTargetOf(returnTo) : undefined;
    sendPage(res, status, signInPage(this.server.frame, view), { formTargets: clientTarget ? [clientTarget] : [] });
  }

  private resourceName(url: string): string {
    if (url === this.config.mcpAudience) return 'Kadu MCP endpoint';
    if (url === this.config.apiAudience) return 'Kadu REST API';
    return 'Unknown resource';
  }
}
