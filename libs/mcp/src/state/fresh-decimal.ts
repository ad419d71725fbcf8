/** "0" … "99", and the same two digits zero-padded ("00" … "99") for the inner pairs of larger numbers. */
const BELOW_100 = Array.from({ length: 100 }, (_, n) => String(n));
const PAIR = BELOW_100.map((digits) => digits.padStart(2, '0'));

/**
 * `String(n)` for a count that changes on every call (a budget's remaining requests), in a string
 * that dies with the response that carries it.
 *
 * Why not `String(n)`: V8 keeps every string it makes from a number in its number-to-string cache,
 * a table in the old generation, until another number takes the slot (up to 16 384 slots). A count
 * that is new on every call therefore outlives the young generation on every call: promoted, it
 * made each of Kadu's scavenges dearer than the module's (1.1 against 0.8–0.9 ms, 12 kB promoted per
 * scavenge against 1.4; bench/RESULTS.md, issue 32, twelfth pass). Built from a table of digit
 * pairs, the same text never enters that cache; what is not a non-negative safe integer is left to
 * `String`.
 */
export function freshDecimal(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  if (n < 100) return BELOW_100[n];
  let text = PAIR[n % 100];
  let rest = Math.floor(n / 100);
  while (rest >= 100) {
    text = PAIR[rest % 100] + text;
    rest = Math.floor(rest / 100);
  }
  return BELOW_100[rest] + text;
}
