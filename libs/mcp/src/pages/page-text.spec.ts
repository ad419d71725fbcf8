import { argumentListHtml, labelOf } from './argument-list.js';
import { renderPage } from './page-layout.js';
import { formTargetOf } from './page-response.js';
import { expiryHtml, relativeTime, utcClock } from './time-text.js';

describe('argument summaries in words', () => {
  it('labels keys as words and marks ids as ids', () => {
    expect(labelOf('task_id')).toBe('Task');
    expect(labelOf('member_ids')).toBe('Members');
    expect(labelOf('costCap')).toBe('Cost cap');
    expect(labelOf('id')).toBe('Id');
    const html = argumentListHtml({
      task_id: '01a22e60-caca-74f3-bdfd-a8c43f131d36',
      cost_cap: 9,
      active: false,
      events: ['a', 'b'],
      input: { month: '2026-11' },
    });
    expect(html).toContain(
      '<dt>Task</dt><dd><span class="tag">id</span><code class="id">01a22e60-caca-74f3-bdfd-a8c43f131d36</code></dd>',
    );
    expect(html).toContain('<dt>Cost cap</dt><dd>9</dd>');
    expect(html).toContain('<dt>Active</dt><dd>no</dd>');
    expect(html).toContain('<dt>Events</dt><dd><ul><li>a</li><li>b</li></ul></dd>');
    expect(html).toContain('<dt>Input</dt><dd><dl><dt>Month</dt><dd>2026-11</dd></dl></dd>');
  });

  it('escapes everything a caller sent, keys included, and keeps the summary markers', () => {
    const html = argumentListHtml({
      '<b>': '<script>alert(1)</script>',
      note: 'x… (+300 characters)',
      '…': '+5 more keys',
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('x… (+300 characters)');
    expect(html).toContain('<dt class="muted">More</dt><dd class="muted">+5 more keys</dd>');
  });
});

describe('expiry as a person reads it', () => {
  const now = Date.parse('2026-11-30T19:00:00Z');
  it('relative time plus the UTC clock, rewritten to local time by the page script', () => {
    expect(relativeTime(now + 10 * 60_000, now)).toBe('in 10 minutes');
    expect(relativeTime(now + 30_000, now)).toBe('in 30 seconds');
    expect(relativeTime(now - 2 * 60_000, now)).toBe('2 minutes ago');
    expect(utcClock(now + 3 * 60_000, now)).toBe('19:03 UTC');
    expect(utcClock(now + 24 * 3600_000, now)).toBe('2026-12-01 19:00 UTC');
    expect(expiryHtml(now + 10 * 60_000, now)).toBe(
      '<time datetime="2026-11-30T19:10:00.000Z" data-expiry>in 10 minutes (at 19:10 UTC)</time>',
    );
    expect(expiryHtml(now - 60_000, now)).toContain('expired at 18:59 UTC');
  });

  it('makes its formatter on the first page with a time, not when the module loads', async () => {
    const Real = Intl.RelativeTimeFormat;
    let made = 0;
    const counted = new Proxy(Real, { construct: (target, args: []) => (made++, Reflect.construct(target, args)) });
    Object.defineProperty(Intl, 'RelativeTimeFormat', { value: counted, configurable: true, writable: true });
    try {
      // A copy of its own (the query makes another module): the shared one may have run already.
      const copy = './time-text.js?first-use';
      const fresh = (await import(/* @vite-ignore */ copy)) as typeof import('./time-text.js');
      expect(made).toBe(0);
      expect(fresh.relativeTime(now + 10 * 60_000, now)).toBe('in 10 minutes');
      expect(fresh.relativeTime(now - 2 * 60_000, now)).toBe('2 minutes ago');
      expect(made).toBe(1);
    } finally {
      Object.defineProperty(Intl, 'RelativeTimeFormat', { value: Real, configurable: true, writable: true });
    }
  });
});

describe('the layout', () => {
  it('loads its stylesheet and script from files (no inline code) and escapes the title and brand', () => {
    const html = renderPage({
      title: 'A <title>',
      body: '<p>x</p>',
      brand: { name: 'Ac&me', product: 'Pay' },
      assets: '/mcp/pages',
    });
    expect(html).toContain('<link rel="stylesheet" href="/mcp/pages/page.css">');
    expect(html).toContain('<script src="/mcp/pages/page.js" defer></script>');
    expect(html).not.toMatch(/<style|<script>/);
    expect(html).toContain('<title>A &#60;title&#62; · Pay</title>');
    expect(html).toContain('<span class="name">Ac&#38;me</span>');
    expect(html).toContain('<main id="main"><p>x</p></main>');
  });

  it('form targets for the CSP: an origin, or a native scheme', () => {
    expect(formTargetOf('http://127.0.0.1:4000/callback?x=1')).toBe('http://127.0.0.1:4000');
    expect(formTargetOf('cursor://anysphere.cursor-mcp/oauth/callback')).toBe('cursor:');
    expect(formTargetOf('not a url')).toBeUndefined();
  });
});
