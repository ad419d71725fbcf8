import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { sendPage } from '@kobana/nest-mcp';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { kaduPageFrame } from '../mcp/kadu-pages.js';
import { type EntryLinkState, SecretEntryLinks } from './secret-entry-links.js';
import { entryPage, type Frame, linkProblemPage, savedPage, VALUE_MAX_LENGTH } from './secret-entry-page.js';

/**
 * The page where a person types a secret's value (GET shows it and changes nothing; the form
 * POSTs to the same single-use link). Every answer is a page of the shared layout with the
 * approval page's headers (sendPage): no inline script, no referrer, never cached, never framed.
 */
@Controller('secrets/entry')
export class SecretEntryController {
  private readonly frame: Frame;

  constructor(
    private readonly links: SecretEntryLinks,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.frame = kaduPageFrame(config);
  }

  @Get(':token')
  async form(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const link = await this.links.find(token);
    if (!link || link.state !== 'live') return this.problem(res, link?.state);
    sendPage(res, 200, entryPage(this.frame, link, req.originalUrl));
  }

  @Post(':token')
  @HttpCode(200)
  async save(
    @Param('token') token: string,
    @Body() body: { value?: unknown } | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const link = await this.links.find(token);
    if (!link || link.state !== 'live') return this.problem(res, link?.state);
    const value = body?.value;
    if (typeof value !== 'string' || value.length === 0 || value.length > VALUE_MAX_LENGTH) {
      const problem =
        typeof value === 'string' && value.length > VALUE_MAX_LENGTH
          ? `The value is longer than ${VALUE_MAX_LENGTH.toLocaleString('en')} characters.`
          : 'Type the value to store.';
      return sendPage(res, 422, entryPage(this.frame, link, req.originalUrl, problem));
    }
    const version = await this.links.use(token, value);
    // Spent, replaced or deleted between reading and saving (another tab, another replica): say which.
    if (version === undefined) return this.problem(res, (await this.links.find(token))?.state);
    sendPage(res, 200, savedPage(this.frame, link.secret.name, version));
  }

  /** Why a link cannot set the value. Still live to this clock after the database refused it: it expired by the database's. */
  private problem(res: Response, state: EntryLinkState | undefined): void {
    const { status, html } = linkProblemPage(this.frame, state === 'live' ? 'expired' : (state ?? 'unknown'));
    sendPage(res, status, html);
  }
}
