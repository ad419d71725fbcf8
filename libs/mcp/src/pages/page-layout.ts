/** The product identity the host app puts at the top of every page (the module knows no product). */
export interface PageBrand {
  /** e.g. the company, shown bold. */
  readonly name: string;
  /** e.g. the product, shown after the name. */
  readonly product?: string;
  /** One or two characters in the badge (default: the name's first letter). */
  readonly mark?: string;
  /** A visible environment label, e.g. "Development", so nobody mistakes a test server for the real one. */
  readonly environment?: string;
}

export interface PageContent {
  readonly title: string;
  /** The page's main content, already escaped HTML. */
  readonly body: string;
  readonly brand?: PageBrand;
  /** Where the stylesheet and script are served (see McpConfig.pageAssetsPath). */
  readonly assets: string;
  /** A line under the card, already escaped HTML. */
  readonly footer?: string;
}

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * One small layout for every page a person sees: the brand bar, one card (`<main>`), a footer. No
 * inline script or style, so the CSP can allow 'self' only; the language, the viewport and a skip
 * link are always there.
 */
export function renderPage(page: PageContent): string {
  const brand = page.brand ?? { name: 'MCP' };
  const mark = brand.mark ?? brand.name.slice(0, 1).toUpperCase();
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(page.title)} · ${escapeHtml(brand.product ?? brand.name)}</title>
<link rel="stylesheet" href="${escapeHtml(page.assets)}/page.css"><script src="${escapeHtml(page.assets)}/page.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="brand"><span class="mark" aria-hidden="true">${escapeHtml(mark)}</span><span><span class="name">${escapeHtml(brand.name)}</span>${
    brand.product ? ` <span class="product">${escapeHtml(brand.product)}</span>` : ''
  }</span>${brand.environment ? `<span class="env">${escapeHtml(brand.environment)}</span>` : ''}</header>
<main id="main">${page.body}</main>${page.footer ? `<footer>${page.footer}</footer>` : ''}</body></html>`;
}
