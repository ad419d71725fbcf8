/**
 * Waits for a condition instead of sleeping a guessed time: polls `probe` until `done` accepts its
 * value, and fails (naming `what` and the last value seen) after `timeoutMs`. Only real networks and
 * real processes need the generous default; everything with a clock uses an injected one.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean = Boolean,
  { timeoutMs = 15_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs; // not Date.now: tests may move that clock
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (performance.now() > deadline)
      throw new Error(`${what}: not reached in ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
