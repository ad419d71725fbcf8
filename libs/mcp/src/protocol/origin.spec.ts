import { isJsonContentType, isOriginAllowed } from './origin.js';

describe('isOriginAllowed', () => {
  it.each([
    'http://localhost',
    'http://localhost:5173',
    'https://127.0.0.1:8443',
    'http://[::1]:3000',
    'https://kadu.example.com',
  ])('allows %s', (origin) => expect(isOriginAllowed(origin, 'https://kadu.example.com', [])).toBe(true));

  it.each([
    'http://evil.example.com',
    'null',
    'https://kadu.example.com.evil.test',
    'http://kadu.example.com',
    'file://x',
    'nonsense',
  ])('refuses %s', (origin) => expect(isOriginAllowed(origin, 'https://kadu.example.com', [])).toBe(false));

  it('allows configured origins', () => {
    expect(isOriginAllowed('https://app.example.com', undefined, ['https://app.example.com'])).toBe(true);
  });
});

describe('isJsonContentType', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON'])('accepts %s', (t) =>
    expect(isJsonContentType(t)).toBe(true),
  );
  it.each([undefined, '', 'text/plain', 'application/jsonp', 'application/json-patch+json'])('refuses %s', (t) =>
    expect(isJsonContentType(t)).toBe(false),
  );
});
