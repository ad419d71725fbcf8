import { classifyEra, negotiateLegacyRevision } from './era.js';
import { isRejection, type Rejection } from './rejection.js';
import type { JsonRpcMessage } from './jsonrpc.js';

const ALL = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const KADU = ['2026-07-28', '2025-06-18', '2025-03-26'];
const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const msg = (method: string, params?: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  ...(params ? { params } : {}),
});
const rung = (value: unknown) => (isRejection(value) ? (value as Rejection).rung : 'accepted');

describe('classifyEra', () => {
  it('classifies on the protocolVersion key, not on _meta being present', () => {
    expect(classifyEra(msg('tools/list', { _meta: envelope() }), '2026-07-28', ALL)).toMatchObject({
      era: 'modern',
      revision: '2026-07-28',
    });
    expect(classifyEra(msg('tools/list', { _meta: { progressToken: 'p' } }), '2025-06-18', ALL)).toEqual({
      era: 'legacy',
      revision: '2025-06-18',
    });
  });

  it('keeps clientInfo and capabilities from the envelope', () => {
    const decision = classifyEra(
      msg('tools/list', {
        _meta: envelope({ 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1', title: 'C' } }),
      }),
      undefined,
      ALL,
    );
    expect(decision).toEqual({
      era: 'modern',
      revision: '2026-07-28',
      clientCapabilities: {},
      clientInfo: { name: 'c', version: '1', title: 'C' },
    });
  });

  it.each([
    ['protocolVersion not a string', { 'io.modelcontextprotocol/protocolVersion': 1 }],
    ['capabilities missing', { 'io.modelcontextprotocol/clientCapabilities': undefined }],
    ['capabilities an array', { 'io.modelcontextprotocol/clientCapabilities': [] }],
    ['clientInfo without name', { 'io.modelcontextprotocol/clientInfo': { version: '1' } }],
  ])('envelope invalid: %s', (_what, extra) => {
    const r = classifyEra(msg('server/discover', { _meta: envelope(extra) }), undefined, ALL) as Rejection;
    expect(r).toMatchObject({ rung: 'envelope_invalid', status: 400, code: -32602, id: 1 });
  });

  it('checks header/envelope agreement before the version gate', () => {
    const r = classifyEra(
      msg('server/discover', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999' }) }),
      '2026-07-28',
      ALL,
    );
    expect(r).toMatchObject({ rung: 'header_mismatch', code: -32020, status: 400 });
  });

  it('refuses an unsupported envelope version with supported/requested', () => {
    const r = classifyEra(
      msg('server/discover', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }) }),
      undefined,
      KADU,
    );
    expect(r).toMatchObject({
      rung: 'unsupported_version',
      code: -32022,
      data: { supported: KADU, requested: '1999-01-01' },
    });
  });

  it('refuses 2026 when the module does not serve it', () => {
    expect(rung(classifyEra(msg('tools/list', { _meta: envelope() }), undefined, ['2025-06-18']))).toBe(
      'unsupported_version',
    );
  });

  it('a modern header without the envelope is -32602, never a silent fallback', () => {
    expect(classifyEra(msg('tools/list'), '2026-07-28', ALL)).toMatchObject({
      rung: 'modern_header_without_envelope',
      code: -32602,
    });
  });

  it('a legacy header the server does not speak is -32022', () => {
    expect(classifyEra(msg('tools/list'), '2025-11-25', KADU)).toMatchObject({
      rung: 'unsupported_version',
      data: { requested: '2025-11-25' },
    });
    expect(classifyEra(msg('tools/list'), 'nonsense', KADU)).toMatchObject({ rung: 'unsupported_version' });
  });

  it('no header means 2025-03-26', () => {
    expect(classifyEra(msg('tools/list'), undefined, KADU)).toEqual({ era: 'legacy', revision: '2025-03-26' });
    expect(rung(classifyEra(msg('tools/list'), undefined, ['2026-07-28', '2025-06-18']))).toBe('unsupported_version');
  });

  it('initialize negotiates instead of failing on its header', () => {
    expect(classifyEra(msg('initialize', { protocolVersion: '2025-11-25' }), '2025-11-25', KADU)).toEqual({
      era: 'legacy',
      revision: '2025-06-18',
    });
    expect(rung(classifyEra(msg('initialize', { protocolVersion: '2025-06-18' }), undefined, ['2026-07-28']))).toBe(
      'unsupported_version',
    );
  });

  it('initialize with the 2026 envelope is a modern request (its method is then unknown)', () => {
    expect(classifyEra(msg('initialize', { _meta: envelope() }), '2026-07-28', ALL)).toMatchObject({ era: 'modern' });
  });
});

describe('negotiateLegacyRevision', () => {
  it.each([
    ['2025-06-18', KADU, '2025-06-18'],
    ['2025-03-26', KADU, '2025-03-26'],
    ['2025-11-25', KADU, '2025-06-18'],
    ['2025-11-25', ALL, '2025-11-25'],
    ['2026-07-28', ALL, '2025-11-25'],
    [undefined, KADU, '2025-06-18'],
    [42, KADU, '2025-06-18'],
  ])('%s with %j → %s', (requested, supported, expected) => {
    expect(negotiateLegacyRevision(requested, supported)).toBe(expected);
  });
});
