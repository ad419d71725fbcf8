import { Body, Controller, Get, Inject, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { SecretBox } from '../common/secret-box.js';
import { DATABASE, type Database } from '../db/database.js';
import { hashToken } from './secrets.service.js';

export const SECRET_VALUE_BOX = Symbol('SECRET_VALUE_BOX');

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: Response, status: number, body: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kadu secret</title></head>
<body style="font-family:system-ui;max-width:32rem;margin:3rem auto">${body}</body></html>`);
}

/** The page where a person types a secret's value; the link is single-use and expires. */
@Controller('secrets/entry')
export class SecretEntryController {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(SECRET_VALUE_BOX) private readonly box: SecretBox,
  ) {}

  @Get(':token')
  async form(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const link = await this.link(token);
    page(
      res,
      200,
      `<h1>Set the value of ${escape(link.name)}</h1>
<form method="post"><label>Value <input type="password" name="value" required autocomplete="off"></label>
<button type="submit">Save</button></form><p>The value is stored encrypted and never shown again.</p>`,
    );
  }

  @Post(':token')
  async save(@Param('token') token: string, @Body() body: { value?: unknown }, @Res() res: Response): Promise<void> {
    const value = body?.value;
    if (typeof value !== 'string' || value.length === 0 || value.length > 10_000) {
      throw new ApiError(422, 'validation_failed', 'Validation failed', 'value must be a non-empty string', 'value');
    }
    const saved = await this.db.transaction(async (tx) => {
      const [used] = await tx.query<{ secret_id: string }>(
        'update secret_entry_links set used_at = now() where token_hash = $1 and used_at is null and expires_at > now() returning secret_id',
        [hashToken(token)],
      );
      if (!used) return false;
      await tx.query(
        'update secrets set value_sealed = $2, version = version + 1, rotated_at = now(), updated_at = now() where id = $1 and deleted_at is null',
        [used.secret_id, this.box.seal(value)],
      );
      return true;
    });
    if (!saved) throw ApiError.notFound('link');
    page(res, 200, '<h1>Saved</h1><p>You can close this page.</p>');
  }

  private async link(token: string): Promise<{ name: string }> {
    const [row] = await this.db.query<{ name: string }>(
      `select s.name from secret_entry_links l join secrets s on s.id = l.secret_id
        where l.token_hash = $1 and l.used_at is null and l.expires_at > now() and s.deleted_at is null`,
      [hashToken(token)],
    );
    if (!row) throw ApiError.notFound('link');
    return row;
  }
}
