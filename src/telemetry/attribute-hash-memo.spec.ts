import { createRequire } from 'node:module';
import type { Attributes } from '@opentelemetry/api';
import { type HistogramMetricData, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { memoiseAttributeHashes } from './attribute-hash-memo.js';

const utils = createRequire(import.meta.url)('@opentelemetry/sdk-metrics/build/src/utils.js') as {
  hashAttributes: (attributes: Attributes) => string;
};

/** Which label sets the SDK hashed, counted on the way to its own function (memoised or not). */
const hashed: Attributes[] = [];
const sdkHash = utils.hashAttributes;
utils.hashAttributes = (attributes) => {
  hashed.push(attributes);
  return sdkHash(attributes);
};
memoiseAttributeHashes(utils);

class Collect extends MetricReader {
  protected onForceFlush = async (): Promise<void> => undefined;
  protected onShutdown = async (): Promise<void> => undefined;
}

/** The histogram's series after `record` ran: labels → count and sum, as an exporter gets them. */
async function series(record: (h: ReturnType<ReturnType<MeterProvider['getMeter']>['createHistogram']>) => void) {
  const reader = new Collect();
  const provider = new MeterProvider({ readers: [reader] });
  record(provider.getMeter('test').createHistogram('d', { unit: 's' }));
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics[0]!.metrics[0] as HistogramMetricData;
  await provider.shutdown();
  return metric.dataPoints
    .map((p) => ({ labels: p.attributes, count: p.value.count, sum: p.value.sum }))
    .sort((a, b) => JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)));
}

describe('memoised attribute hashes (metrics SDK)', () => {
  it('puts a shared frozen label set and an equal fresh one in the same series, as before', async () => {
    const shared = Object.freeze({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' });
    const points = await series((h) => {
      for (let i = 0; i < 3; i++) h.record(1, shared);
      h.record(2, { 'gen_ai.tool.name': 'echo', 'mcp.method.name': 'tools/call' });
      h.record(5, Object.freeze({ 'mcp.method.name': 'tools/list' }));
    });
    expect(points).toEqual([
      { labels: { 'gen_ai.tool.name': 'echo', 'mcp.method.name': 'tools/call' }, count: 4, sum: 5 },
      { labels: { 'mcp.method.name': 'tools/list' }, count: 1, sum: 5 },
    ]);
  });

  it('hashes a frozen set of primitives once, however often it is recorded', async () => {
    const shared = Object.freeze({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    await series((h) => {
      for (let i = 0; i < 50; i++) h.record(0.01, shared);
    });
    // The SDK still goes through the function the memo replaced (else the memo would do nothing).
    expect(hashed.filter((a) => a === shared)).toHaveLength(1);
  });

  it('hashes a set that may still change (not frozen, or an array value) on every record', async () => {
    const open: Attributes = { door: 'mcp' };
    const withArray = Object.freeze({ tags: ['a'] });
    await series((h) => {
      for (let i = 0; i < 3; i++) h.record(1, open);
      for (let i = 0; i < 3; i++) h.record(1, withArray);
    });
    expect(hashed.filter((a) => a === open).length).toBeGreaterThanOrEqual(3);
    expect(hashed.filter((a) => a === withArray).length).toBeGreaterThanOrEqual(3);
  });
});
