import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, HttpCode, Param, Post, Req, Res, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readBody } from '../http/read-body.js';
import { McpConfig } from '../mcp-config.js';
import { approvalPage, escape, page } from './approval-page.js';
import { ApprovalsService } from './approvals.service.js';

const HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  // No script is needed; nothing may frame the page (clickjacking); nothing leaks the link.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

function send(res: Response, status: number, html: string): void {
  for (const [name, value] of Object.entries(HEADERS)) res.setHeader(name, value);
  res.status(status).send(html);
}

const gone = (res: Response) => send(res, 404, page('Link not valid', '<h1>This link is not valid</h1><p>It has expired, was already used, or never existed. Ask your assistant to try again.</p>'));

/**
 * `GET <path>/approvals/<secret>` shows what was asked and changes nothing (link previews and
 * prefetchers must not approve); the Continue and Cancel buttons POST with an anti-CSRF token.
 */
export function createApprovalController(path: string): Type {
  @Controller(`${path}/approvals`)
  class ApprovalController {
    constructor(
      private readonly approvals: ApprovalsService,
      private readonly config: McpConfig,
    ) {}

    @Get(':secret')
    async show(@Param('secret') secret: string, @Req() req: Request, @Res() res: Response): Promise<void> {
      const found = await this.approvals.bySecret(secret);
      if (!found) return gone(res);
      if (!(await this.sessionOk(req, found.record))) return send(res, 403, page('Sign in', '<h1>Sign in first</h1><p>Open this link in a browser where you are signed in.</p>'));
      if (found.status !== 'pending') return send(res, 409, page('Already decided', `<h1>Already decided</h1><p>This request was already ${found.status === 'rejected' ? 'canceled' : 'approved'}.</p>`));
      send(res, 200, approvalPage(found.record, req.originalUrl));
    }

    @Post(':secret')
    @HttpCode(200)
    async decide(@Param('secret') secret: string, @Req() req: Request, @Res() res: Response): Promise<void> {
      const form = await readForm(req);
      const found = await this.approvals.bySecret(secret);
      if (!found) return gone(res);
      const csrf = form.get('csrf') ?? '';
      const expected = Buffer.from(found.record.csrf);
      if (Buffer.byteLength(csrf) !== expected.length || !timingSafeEqual(Buffer.from(csrf), expected)) {
        return send(res, 403, page('Refused', '<h1>Refused</h1><p>This form did not come from the approval page.</p>'));
      }
      if (!(await this.sessionOk(req, found.record))) return send(res, 403, page('Sign in', '<h1>Sign in first</h1>'));
      const decision = form.get('decision') === 'approve' ? 'approved' : 'rejected';
      if (!(await this.approvals.decide(found.record, decision))) {
        return send(res, 409, page('Already decided', '<h1>Already decided</h1><p>This request was already approved or canceled.</p>'));
      }
      const title = escape(found.record.title);
      const done =
        decision === 'approved'
          ? `<h1>Approved</h1><p>Go back to ${escape(found.record.clientName)}: it can now run “${title}” once.</p>`
          : `<h1>Canceled</h1><p>“${title}” will not run.</p>`;
      send(res, 200, page(decision === 'approved' ? 'Approved' : 'Canceled', done));
    }

    private async sessionOk(req: Request, record: { id: string; principalKey: string; tool: string }): Promise<boolean> {
      const check = this.config.options.approvals?.sessionCheck;
      return check ? check(req, { id: record.id, subject: record.principalKey, tool: record.tool }) : true;
    }
  }
  return ApprovalController;
}

async function readForm(req: Request): Promise<URLSearchParams> {
  if (req.body && typeof req.body === 'object') {
    return new URLSearchParams(Object.entries(req.body as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]));
  }
  const body = await readBody(req, 8192);
  return new URLSearchParams(body.ok ? body.text : '');
}
