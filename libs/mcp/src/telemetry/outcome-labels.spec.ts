import type { McpTarget } from '../call/exchange.js';
import { OutcomeLabelSets } from './outcome-labels.js';

const echo: McpTarget = {
  name: 'echo',
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo' },
};

describe('outcome label sets', () => {
  it('are the labels of the MCP conventions, the span getting only those it lacks at creation', () => {
    const sets = new OutcomeLabelSets();
    expect(sets.of('tools/call', echo, '2026-07-28', undefined, undefined)).toEqual({
      metric: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
      },
      span: { 'mcp.protocol.version': '2026-07-28' },
    });
    expect(sets.of('tools/call', undefined, undefined, '-32602', -32602)).toEqual({
      metric: {
        'mcp.method.name': 'tools/call',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'error.type': '-32602',
        'rpc.response.status_code': '-32602',
      },
      span: { 'error.type': '-32602', 'rpc.response.status_code': '-32602' },
    });
    expect(sets.of('tools/call', echo, '2025-06-18', 'tool_error', undefined).span).toEqual({
      'mcp.protocol.version': '2025-06-18',
      'error.type': 'tool_error',
    });
  });

  it('hands out one frozen object per outcome, another for any label that differs', () => {
    const sets = new OutcomeLabelSets();
    const ok = sets.of('tools/call', echo, '2026-07-28', undefined, undefined);
    expect(Object.isFrozen(ok.metric) && Object.isFrozen(ok.span)).toBe(true);
    expect(sets.of('tools/call', { ...echo }, '2026-07-28', undefined, undefined)).toBe(ok);
    const others = [
      sets.of('tools/call', echo, '2025-06-18', undefined, undefined),
      sets.of('tools/call', undefined, '2026-07-28', undefined, undefined),
      sets.of('tools/list', undefined, '2026-07-28', undefined, undefined),
      sets.of('tools/call', echo, '2026-07-28', 'tool_error', undefined),
      sets.of('tools/call', echo, '2026-07-28', '-32600', -32600),
      sets.of('tools/call', echo, '2026-07-28', '-32602', -32602),
    ];
    expect(new Set([ok, ...others]).size).toBe(7);
    expect(sets.of('tools/call', echo, '2026-07-28', '-32602', -32602)).toBe(others[5]);
  });

  it('still answers past the cap, without keeping more sets', () => {
    const sets = new OutcomeLabelSets();
    for (let i = 0; i < 4096; i++)
      sets.of('tools/call', { name: `t${i}`, attributes: {} }, undefined, undefined, undefined);
    const past = { name: 'late', attributes: { 'gen_ai.tool.name': 'late' } };
    const first = sets.of('tools/call', past, undefined, undefined, undefined);
    expect(first.metric['gen_ai.tool.name']).toBe('late');
    expect(sets.of('tools/call', past, undefined, undefined, undefined)).not.toBe(first);
    expect(sets.of('tools/call', past, undefined, undefined, undefined)).toEqual(first);
  });
});
