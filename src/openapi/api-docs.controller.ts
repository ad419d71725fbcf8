import { Controller, Get, Logger, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { ApiDescription } from './api-description.service.js';
import { DOCS_CSP, DOCS_HTML, DOCS_SCRIPT, INIT_SCRIPT, UI_ASSETS } from './docs-page.js';

/**
 * The API description and its reference page, without authentication: they describe the API's
 * shape (already public in docs/integrators/kadu-api.md), never data. Swagger UI is served from its npm package.
 */
@Controller('api/v1')
export class ApiDocsController {
  private readonly logger = new Logger('ApiDocs');

  constructor(private readonly description: ApiDescription) {}

  @Get('openapi.json')
  @ApiOperation({
    summary: 'This description',
    description: 'The OpenAPI 3.1 description of /api/v1, generated from the routes and their DTOs.',
  })
  @ApiOkResponse({ description: 'An OpenAPI 3.1 document', schema: { type: 'object' } })
  openapi(@Res() res: Response): void {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    // A public document without credentials: any origin may read it (editors, client generators).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.send(this.description.json);
  }

  @Get('docs')
  @ApiOperation({
    summary: 'The reference page',
    description: 'This description, browsable (Swagger UI, served from this origin).',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'An HTML page', schema: { type: 'string' } })
  page(@Res() res: Response): void {
    this.pageHeaders(res);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.send(DOCS_HTML);
  }

  @Get('docs/:asset')
  @ApiOperation({ summary: 'A file of the reference page', description: 'Its stylesheet and scripts.' })
  @ApiProduces('text/css', 'text/javascript')
  @ApiOkResponse({ description: 'The file', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: '`not_found`: the page has no such file' })
  asset(@Param('asset') name: string, @Res() res: Response): void {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (name === INIT_SCRIPT) {
      res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.send(DOCS_SCRIPT);
      return;
    }
    const asset = Object.hasOwn(UI_ASSETS, name) ? UI_ASSETS[name] : undefined;
    if (!asset) throw ApiError.notFound('asset');
    res.sendFile(asset.file, { headers: { 'Content-Type': asset.type }, maxAge: '1h' }, (error) => {
      if (!error) return;
      this.logger.warn(`${name} could not be sent: ${error.message}`);
      if (!res.headersSent)
        res.status(404).json(new ApiError(404, 'not_found', 'Not found', 'No such asset').getResponse());
      else res.destroy();
    });
  }

  private pageHeaders(res: Response): void {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
  }
}
