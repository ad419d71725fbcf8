import { RequestStateSealer } from './request-state.js';
import { SealedText } from './sealed-text.js';

describe('sealed text', () => {
  const key = Buffer.from('a fixed state key for a test vector');

  it('opens what it sealed, for its purpose and context only', () => {
    const links = new SealedText(key, 'mcp-approval-link');
    const sealed = links.seal('the-secret', 'approval-1');
    expect(sealed).not.toContain('the-secret');
    expect(links.open(sealed, 'approval-1')).toBe('the-secret');
    expect(links.open(sealed, 'approval-2')).toBeUndefined();
    expect(links.open(sealed)).toBeUndefined();
    expect(new SealedText(key, 'another-purpose').open(sealed, 'approval-1')).toBeUndefined();
    expect(new SealedText(Buffer.from('another key'), 'mcp-approval-link').open(sealed, 'approval-1')).toBeUndefined();
    // One character changed, never the last (its low bits may be base64url padding): the
    // replacement is chosen from the character it replaces, so the text always differs.
    const at = sealed.length - 2;
    const flipped = `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`;
    expect(flipped).not.toBe(sealed);
    expect(links.open(flipped, 'approval-1')).toBeUndefined();
    expect(links.open(sealed.slice(0, 20), 'approval-1')).toBeUndefined();
    expect(links.open(42, 'approval-1')).toBeUndefined();
  });

  it('a request state sealed by the previous release still opens (replicas are upgraded one at a time)', () => {
    const before =
      'v1.YtqNe7hZ4NEqCDN7UZfGAwNPURoo2pWGcaS1RZrTxEAFbGiuQuTmXVYbGI9PvZ_RZlsmH8ooq1m2ADXflySaWz9G8tPMxIlG_HS6FCPvsOIs1fTY7TXo9wAnhFcO9uFTH9XxHvfHEiQovDqUeBYvM2hYYTTIMTwKaa3XKgJ0Po8RCP5MlYSm8aljRwGSlw5_3AJMjtUFz8bPdh_QEUUw';
    expect(new RequestStateSealer(key).open(before)).toEqual({
      sub: 'ana',
      method: 'tools/call',
      target: 'entries_void',
      digest: 'd',
      exp: 4102444800000,
      nonce: 'n',
      asked: { confirm: 'form' },
    });
  });
});
