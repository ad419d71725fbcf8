/**
 * Whether a value is a promise (or any thenable): the request path awaits only what has to wait, and
 * answers a value in the same tick (bench/RESULTS.md, issue 32). On the lowest floor that uses it:
 * dispatch/ here, the endpoint's controller above.
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
