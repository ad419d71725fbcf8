import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from './infrastructure.js';
export const OUTPUT = join(process.cwd(), 'test-output');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 740 };

/** Debian's Chromium, headless, talking only to this machine (tests declare it with `requires(chromium())`). */
export function launchChromium(): Promise<Browser> {
  return playwright.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's WCAG 2.x A/AA and best-practice rules on the page as it is. Evaluated through the
 * DevTools protocol, so the page's CSP (no inline script) stays as it is served.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })",
  )) as { violations: AxeViolation[] };
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target })),
  }));
}

/** Only what blocks people: serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Screenshots of the page at desktop and phone widths, as test output (git-ignored). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  const before = page.viewportSize();
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(OUTPUT, `${name}-${label}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/** The page needs no horizontal scrolling at phone width. */
export async function fitsPhoneWidth(page: Page): Promise<boolean> {
  const before = page.viewportSize();
  await page.setViewportSize(PHONE);
  const fits = (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean;
  if (before) await page.setViewportSize(before);
  return fits;
}
