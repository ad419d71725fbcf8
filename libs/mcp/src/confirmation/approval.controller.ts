import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, HttpCode, Param, Post, Req, Res, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readBody } from '../call/read-body.js';
import { McpConfig } from '../mcp-config.js';
import { sendPage } from '../pages/page-response.js';
import {
  alreadyDecidedPage,
  approvalPage,
  approvedPage,
  canceledPage,
  expiredPage,
  notValidPage,
  type PageFrame,
  refusedPage,
  signInFirstPage,
} from './approval-page.js';
import { ApprovalsService } from './approvals.service.js';

/**
 * `GET <path>/approvals/<secret>` shows what was asked and changes nothing (link previews and
 * prefetchers must not approve); the Continue and Cancel buttons POST with an anti-CSRF token.
 * Every page shares the module's layout and headers (sendPage): no inline script, no referrer,
 * never cached, never framed.
 */
export function createApprovalController(path: string): Type {
  @Controller(`${path}/approvals`)
  class ApprovalController {
    constructor(
      private readonly approvals: ApprovalsService,
      private readonly config: McpConfig,
    ) {}

    private get frame(): PageFrame {
      return { brand: this.config.pageBrand, assets: this.config.pageAssetsPath };
    }

    @Get(':secret')
    async show(@Param('secret') secret: string, @Req() req: Request, @Res() res: Response): Promise<void> {
      const found = await this.approvals.bySecret(secret);
      if (!found) return sendPage(res, 404, notValidPage(this.frame));
      if (!(await this.sessionOk(req, found.record))) return sendPage(res, 403, signInFirstPage(this.frame));
      if (found.status !== 'pending') return sendPage(res, 409, alreadyDecidedPage(this.frame, found.status));
      if (found.expired) return sendPage(res, 410, expiredPage(this.frame, found.record));
      sendPage(res, 200, approvalPage(this.frame, found.record, req.originalUrl));
    }

    @Post(':secret')
    @HttpCode(200)
    async decide(@Param('secret') secret: string, @Req() req: Request, @Res() res: Response): Promise<void> {
      const form = await readForm(req);
      const found = await this.approvals.bySecret(secret);
      if (!found) return sendPage(res, 404, notValidPage(this.frame));
      const csrf = form.get('csrf') ?? '';
      const expected = Buffer.from(found.record.csrf);
      if (Buffer.byteLength(csrf) !== expected.length || !timingSafeEqual(Buffer.from(csrf), expected)) {
        return sendPage(res, 403, refusedPage(this.frame));
      }
      if (!(await this.sessionOk(req, found.record))) return sendPage(res, 403, signInFirstPage(this.frame));
      if (found.status !== 'pending') return sendPage(res, 409, alreadyDecidedPage(this.frame, found.status));
      if (found.expired) return sendPage(res, 410, expiredPage(this.frame, found.record));
      const decision = form.get('decision') === 'approve' ? 'approved' : 'rejected';
      if (!(await this.approvals.decide(found.record, decision))) {
        const now = await this.approvals.bySecret(secret);
        if (now?.expired) return sendPage(res, 410, expiredPage(this.frame, found.record));
        return sendPage(res, 409, alreadyDecidedPage(this.frame, now?.status ?? 'approved'));
      }
      sendPage(
        res,
        200,
        decision === 'approved' ? approvedPage(this.frame, found.record) : canceledPage(this.frame, found.record),
      );
    }

    private async sessionOk(
      req: Request,
      record: { id: string; principalKey: string; tool: string },
    ): Promise<boolean> {
      const check = this.config.approvalSessionCheck;
      return check ? check(req, { id: record.id, subject: record.principalKey, tool: record.tool }) : true;
    }
  }
  return ApprovalController;
}

async function readForm(req: Request): Promise<URLSearchParams> {
  if (req.body && typeof req.body === 'object') {
    return new URLSearchParams(
      // A field that is not a string (a parser's array or object) is absent, never coerced (issue 34).
      Object.entries(req.body as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === 'string',
      ),
    );
  }
  const body = await readBody(req, 8192);
  return new URLSearchParams(body.ok ? body.text : '');
}
