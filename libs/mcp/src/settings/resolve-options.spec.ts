import { KNOWN_REVISIONS } from '../protocol/index.js';
import type { McpModuleOptions } from '../mcp.options.js';
import { OPTION_DEFAULTS, resolveOptions } from './resolve-options.js';

const serverInfo = { name: 't', version: '1' };

describe('resolveOptions', () => {
  it('applies every default to the least options', () => {
    const s = resolveOptions({ serverInfo });
    expect(s.endpoint.protocolVersions).toEqual([...KNOWN_REVISIONS].sort().reverse());
    expect(s.endpoint.allowedOrigins).toEqual([]);
    expect(s.endpoint.legacyLogging).toBe(false);
    expect(s.catalog.pageSize).toBe(100);
    expect(s.catalog.checkOutput).toBe(true);
    expect(s.catalog.annotationDefaults).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(s.catalog.presentResult('x')).toBe('x');
    expect(s.confirmation).toMatchObject({
      destructiveTools: 'confirm',
      approvalTtlMs: 600_000,
      maxPendingApprovals: 20,
    });
    expect(s.state.stateKey).toHaveLength(32);
    expect(s.callers.customPrincipal).toBe(false);
    expect(s.extensions.tasks).toBeUndefined();
  });

  it('keeps the listen defaults, and serves listen only when a 2026 revision is enabled and something is offered', () => {
    expect(resolveOptions({ serverInfo }).listen).toMatchObject({
      enabled: false,
      maxStreamsPerPrincipal: 10,
      maxSubscriptionsPerStream: 100,
      heartbeatMs: 15_000,
      maxBufferedBytes: 1024 * 1024,
      deliveryBatch: 64,
      closeTimeoutMs: 5000,
      followModuleTasks: false,
    });
    const offered = resolveOptions({ serverInfo, subscriptions: { toolsListChanged: true, deliveryBatch: 0 } }).listen;
    expect(offered.enabled).toBe(true);
    expect(offered.offer).toEqual({
      toolsListChanged: true,
      promptsListChanged: false,
      resourcesListChanged: false,
      resourceSubscriptions: false,
      taskIds: false,
    });
    expect(offered.deliveryBatch).toBe(1);
    const legacyOnly = { serverInfo, protocolVersions: ['2025-06-18'], subscriptions: { toolsListChanged: true } };
    expect(resolveOptions(legacyOnly).listen.enabled).toBe(false);
  });

  it('normalizes URLs and orders revisions newest first', () => {
    const s = resolveOptions({
      serverInfo,
      protocolVersions: ['2025-03-26', '2026-07-28'],
      publicBaseUrl: 'https://api.example.com/',
      allowedOrigins: ['https://app.example.com/path'],
    });
    expect(s.endpoint.protocolVersions).toEqual(['2026-07-28', '2025-03-26']);
    expect(s.endpoint.publicBaseUrl).toBe('https://api.example.com');
    expect(s.endpoint.publicOrigin).toBe('https://api.example.com');
    expect(s.endpoint.allowedOrigins).toEqual(['https://app.example.com']);
  });

  it('refuses unknown and empty revision lists', () => {
    expect(() => resolveOptions({ serverInfo, protocolVersions: ['1999-01-01'] })).toThrow(
      'McpModule: unknown protocol revision(s) 1999-01-01',
    );
    expect(() => resolveOptions({ serverInfo, protocolVersions: [] })).toThrow('McpModule: protocolVersions is empty');
  });

  it("keys principals by the app's key, else by subject, and anonymous callers alike", () => {
    const principal = { subject: 'ana', scopes: [] };
    expect(resolveOptions({ serverInfo }).callers.principalKey(principal)).toBe('ana');
    expect(resolveOptions({ serverInfo }).callers.principalKey(undefined)).toBe('anonymous');
    const keyed = resolveOptions({ serverInfo, principalKey: (p) => `org:${p.subject}` });
    expect(keyed.callers.principalKey(principal)).toBe('org:ana');
  });

  it('derives the same state key from the same secret and salt, and another from another salt', () => {
    const key = (o: Partial<McpModuleOptions>) => resolveOptions({ serverInfo, ...o }).state.stateKey.toString('hex');
    expect(key({ stateKey: 's' })).toBe(key({ stateKey: 's' }));
    expect(key({ stateKey: 's' })).not.toBe(key({ stateKey: 's', stateKeySalt: 'other' }));
    expect(key({})).not.toBe(key({}));
  });

  it('returns read-only settings', () => {
    const s = resolveOptions({ serverInfo, allowedOrigins: ['https://a.example'] });
    expect(Object.isFrozen(s)).toBe(true);
    for (const group of Object.values(s)) expect(Object.isFrozen(group)).toBe(true);
    expect(Object.isFrozen(s.endpoint.protocolVersions)).toBe(true);
    expect(Object.isFrozen(s.endpoint.allowedOrigins)).toBe(true);
    expect(() => {
      (s.catalog as { pageSize: number }).pageSize = 5;
    }).toThrow(TypeError);
    expect(OPTION_DEFAULTS.pageSize).toBe(100);
  });
});
