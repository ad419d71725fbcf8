import { checkStandardHeaders } from './standard-headers.js';
import type { JsonRpcMessage } from './jsonrpc.js';

const headers = (h: Record<string, string>) => (name: string) => h[name];
const call: JsonRpcMessage = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_weather' } };
const ok = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' };

describe('checkStandardHeaders', () => {
  it('accepts agreeing headers, trimmed', () => {
    expect(checkStandardHeaders(call, headers({ ...ok, 'mcp-name': '  get_weather ' }))).toBeUndefined();
  });

  it.each([
    ['protocol version missing', { 'mcp-protocol-version': '' }, 'header_missing'],
    ['method missing', { 'mcp-method': '' }, 'header_missing'],
    ['method in another case', { 'mcp-method': 'TOOLS/CALL' }, 'header_mismatch'],
    ['name missing', { 'mcp-name': '' }, 'header_missing'],
    ['name different', { 'mcp-name': 'get_time' }, 'header_mismatch'],
    ['name in another case', { 'mcp-name': 'GET_WEATHER' }, 'header_mismatch'],
    ['name badly encoded', { 'mcp-name': '=?base64?Z2V0X3dlYXRoZXI?=' }, 'header_mismatch'],
  ])('%s', (_what, override, rung) => {
    const r = checkStandardHeaders(call, headers({ ...ok, ...override }));
    expect(r).toMatchObject({ rung, status: 400, code: -32020, id: 3 });
    expect(r?.message).toMatch(/^Header mismatch: /);
  });

  it('decodes a base64 name before comparing', () => {
    const encoded = `=?base64?${Buffer.from('get_weather').toString('base64')}?=`;
    expect(checkStandardHeaders(call, headers({ ...ok, 'mcp-name': encoded }))).toBeUndefined();
  });

  it('compares resources/read names with the uri', () => {
    const read: JsonRpcMessage = {
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/read',
      params: { uri: 'kobana://kadu/me' },
    };
    const h = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read' };
    expect(checkStandardHeaders(read, headers({ ...h, 'mcp-name': 'kobana://kadu/me' }))).toBeUndefined();
    expect(checkStandardHeaders(read, headers({ ...h, 'mcp-name': 'kobana://kadu/usage' }))?.code).toBe(-32020);
  });

  it('does not require headers on notifications, but refuses a disagreeing one', () => {
    const note: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/cancelled' };
    expect(checkStandardHeaders(note, headers({}))).toBeUndefined();
    expect(checkStandardHeaders(note, headers({ 'mcp-method': 'tools/list' }))?.code).toBe(-32020);
  });
});
