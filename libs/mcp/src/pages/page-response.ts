import type { Response } from 'express';

/**
 * Sends a page with the headers every page a person sees carries: scripts and styles from this
 * origin only, forms that post only here (and to `formTargets`, where a form's answer redirects,
 * which browsers also check), never framed, no referrer, never cached, no sniffing.
 */
export function sendPage(
  res: Response,
  status: number,
  html: string,
  options: { formTargets?: readonly string[] } = {},
): void {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.status(status).send(html);
}

/**
 * A CSP source for where a form's redirect may go: an http(s) URL's origin, or a custom scheme
 * (`cursor:`) for native clients; undefined for anything unparseable.
 */
export function formTargetOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    return /^[a-z][a-z0-9+.-]*:$/i.test(parsed.protocol) ? parsed.protocol : undefined;
  } catch {
    return undefined;
  }
}
