import { isValidSpanId, isValidTraceId } from '@opentelemetry/api';
import { PooledRandomIdGenerator } from './random-ids.js';

describe('PooledRandomIdGenerator', () => {
  it('gives valid, lower-case, distinct ids across many refills of its pool', () => {
    const ids = new PooledRandomIdGenerator();
    const traces = new Set<string>();
    const spans = new Set<string>();
    // 24 bytes a span, 4 096 a pool: ~30 refills.
    for (let i = 0; i < 5_000; i++) {
      const trace = ids.generateTraceId();
      const span = ids.generateSpanId();
      expect(trace).toMatch(/^[0-9a-f]{32}$/);
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      expect(isValidTraceId(trace) && isValidSpanId(span)).toBe(true);
      traces.add(trace);
      spans.add(span);
    }
    expect(traces.size).toBe(5_000);
    expect(spans.size).toBe(5_000);
  });

  it('writes the pool bytes as hex in order, and refills the pool once it is used up', () => {
    let fills = 0;
    const ids = new PooledRandomIdGenerator((pool) => {
      fills++;
      for (let i = 0; i < pool.length; i++) pool[i] = (i + fills) & 0xff;
    });
    expect(ids.generateTraceId()).toBe('0102030405060708090a0b0c0d0e0f10');
    expect(ids.generateSpanId()).toBe('1112131415161718');
    // 4 096 bytes: 170 spans' worth (24 bytes each) and a trace id more; the next id starts a new pool.
    for (let i = 0; i < 169; i++) {
      ids.generateTraceId();
      ids.generateSpanId();
    }
    const last = Buffer.from(Array.from({ length: 16 }, (_, i) => (4080 + i + 1) & 0xff)).toString('hex');
    expect(ids.generateTraceId()).toBe(last);
    expect(fills).toBe(1);
    expect(ids.generateSpanId()).toBe('0203040506070809');
    expect(fills).toBe(2);
  });

  it('never gives an all-zero id, which W3C Trace Context forbids: its last byte becomes 1', () => {
    const ids = new PooledRandomIdGenerator((pool) => pool.fill(0));
    expect(ids.generateTraceId()).toBe(`${'0'.repeat(30)}01`);
    expect(ids.generateSpanId()).toBe(`${'0'.repeat(14)}01`);
  });

  it('leaves an id with any byte other than zero as drawn', () => {
    // One byte set in each id: the first of the trace id, the middle of the span id, then the last.
    const ids = new PooledRandomIdGenerator((pool) => {
      pool.fill(0);
      pool[0] = 0xff;
      pool[16 + 3] = 0x80;
      pool[24 + 7] = 0x02;
    });
    expect(ids.generateTraceId()).toBe(`ff${'0'.repeat(30)}`);
    expect(ids.generateSpanId()).toBe('0000008000000000');
    expect(ids.generateSpanId()).toBe(`${'0'.repeat(14)}02`);
  });
});
