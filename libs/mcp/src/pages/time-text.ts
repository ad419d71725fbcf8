// Made on the first page that shows a time, not when the module loads: the first Intl formatter of a
// process loads ICU's locale data (~20 ms and ~7 MB; bench/RESULTS.md, issue 32, thirty-first pass).
let relative: Intl.RelativeTimeFormat | undefined;

/** "in 10 minutes", "in 45 seconds", "2 minutes ago": what the server can say before the script runs. */
export function relativeTime(at: number, now: number = Date.now()): string {
  const seconds = Math.round((at - now) / 1000);
  relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (Math.abs(seconds) < 60) return relative.format(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 90) return relative.format(minutes, 'minute');
  return relative.format(Math.round(minutes / 60), 'hour');
}

/** "19:03 UTC" (with the date when it is not today in UTC). */
export function utcClock(at: number, now: number = Date.now()): string {
  const iso = new Date(at).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}

/**
 * An expiry as a relative time plus a clock time. The server writes UTC; the page's script
 * rewrites it in the reader's local time (`<time data-expiry>`).
 */
export function expiryHtml(at: number, now: number = Date.now()): string {
  const iso = new Date(at).toISOString();
  const text = at > now ? `${relativeTime(at, now)} (at ${utcClock(at, now)})` : `expired at ${utcClock(at, now)}`;
  return `<time datetime="${iso}" data-expiry>${text}</time>`;
}
