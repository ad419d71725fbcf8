import { Controller, Get, Res, type Type } from '@nestjs/common';
import type { Response } from 'express';
import { PAGE_CSS, PAGE_JS } from './page-styles.js';

function asset(res: Response, type: string, body: string): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.send(body);
}

/** The pages' stylesheet and script, at `/<path>/pages/page.css` and `page.js` (files, so the CSP needs no inline allowance). */
export function createPageAssetsController(path: string): Type {
  @Controller(`${path}/pages`)
  class PageAssetsController {
    @Get('page.css')
    css(@Res() res: Response): void {
      asset(res, 'text/css; charset=utf-8', PAGE_CSS);
    }

    @Get('page.js')
    js(@Res() res: Response): void {
      asset(res, 'text/javascript; charset=utf-8', PAGE_JS);
    }
  }
  return PageAssetsController;
}
