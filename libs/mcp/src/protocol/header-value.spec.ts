import { decodeHeaderValue, encodeHeaderValue } from './header-value.js';

describe('decodeHeaderValue (=?base64?…?= sentinel)', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['  padded  ', 'padded'],
    ['=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'],
    ['=?base64?IHBhZGRlZCA=?=', ' padded '],
    ['=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='],
    ['SGVsbG8=', 'SGVsbG8='],
    ['=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    ['=?BASE64?SGVsbG8=?=', '=?BASE64?SGVsbG8=?='],
    ['=?base64??=', ''],
  ])('%s → %s', (raw, value) => {
    expect(decodeHeaderValue(raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['missing padding', '=?base64?SGVsbG8?='],
    ['foreign characters', '=?base64?SGVs!!!bG8=?='],
    ['url-safe alphabet', '=?base64?SGVsbG8_?='],
    ['invalid UTF-8', '=?base64?/w==?='],
    ['whitespace inside', '=?base64?SGVs bG8=?='],
  ])('rejects %s', (_what, raw) => {
    expect(decodeHeaderValue(raw).ok).toBe(false);
  });
});

describe('encodeHeaderValue', () => {
  it.each(['plain_name', 'Hello, 世界', ' padded ', '=?base64?literal?=', 'line\nbreak'])('round-trips %j', (value) => {
    expect(decodeHeaderValue(encodeHeaderValue(value))).toEqual({ ok: true, value });
  });

  it('leaves plain values alone', () => {
    expect(encodeHeaderValue('kadu_tasks_run')).toBe('kadu_tasks_run');
  });
});
