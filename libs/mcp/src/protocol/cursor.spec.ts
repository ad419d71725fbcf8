import { randomBytes } from 'node:crypto';
import { openCursor, sealCursor } from './cursor.js';

const key = randomBytes(32);

describe('sealed cursors', () => {
  it('round-trips for the same scope', () => {
    expect(openCursor(key, sealCursor(key, { scope: 'abc', offset: 100 }), 'abc')).toBe(100);
  });

  it('refuses another scope, another key, and any edit', () => {
    const c = sealCursor(key, { scope: 'abc', offset: 100 });
    expect(openCursor(key, c, 'abd')).toBeUndefined();
    expect(openCursor(randomBytes(32), c, 'abc')).toBeUndefined();
    const forged = Buffer.from('abc:200').toString('base64url') + c.slice(c.indexOf('.'));
    expect(openCursor(key, forged, 'abc')).toBeUndefined();
    expect(openCursor(key, 'garbage', 'abc')).toBeUndefined();
    expect(openCursor(key, 42, 'abc')).toBeUndefined();
  });
});
