import {
  acknowledgement,
  eventNotification,
  filterWants,
  listenEnd,
  offeredCapabilities,
  offeredPart,
  offersNothing,
  parseSubscriptionFilter,
  sseEventBytes,
  sseMessage,
  SUBSCRIPTION_ID_META,
  type SubscriptionEvent,
  type SubscriptionOffer,
} from './subscriptions.js';

const ALL: SubscriptionOffer = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
  resourceSubscriptions: true,
  taskIds: true,
};
const URIS_ONLY: SubscriptionOffer = {
  toolsListChanged: false,
  promptsListChanged: false,
  resourcesListChanged: false,
  resourceSubscriptions: true,
  taskIds: false,
};

describe('subscriptions/listen filter', () => {
  it('reads flags and URI lists, drops false flags, duplicates and unknown keys', () => {
    const parsed = parseSubscriptionFilter({
      notifications: {
        toolsListChanged: true,
        promptsListChanged: false,
        resourceSubscriptions: ['a://1', 'a://1', 'a://2'],
        somethingNew: true,
      },
    });
    expect(parsed).toEqual({ filter: { toolsListChanged: true, resourceSubscriptions: ['a://1', 'a://2'] } });
  });

  it('refuses a missing or malformed filter with the reason', () => {
    expect(parseSubscriptionFilter({})).toEqual({
      error: '"notifications" must be an object (the subscription filter)',
    });
    expect(parseSubscriptionFilter({ notifications: [] })).toHaveProperty('error');
    expect(parseSubscriptionFilter({ notifications: { toolsListChanged: 'yes' } })).toEqual({
      error: '"notifications.toolsListChanged" must be a boolean',
    });
    expect(parseSubscriptionFilter({ notifications: { resourceSubscriptions: 'a://1' } })).toHaveProperty('error');
    expect(parseSubscriptionFilter({ notifications: { resourceSubscriptions: [''] } })).toHaveProperty('error');
    expect(parseSubscriptionFilter({ notifications: { taskIds: [1] } })).toHaveProperty('error');
    expect(parseSubscriptionFilter({ notifications: { resourceSubscriptions: ['x'.repeat(2049)] } })).toHaveProperty(
      'error',
    );
  });

  it('honours only what the server offers', () => {
    const requested = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['a://1'],
      taskIds: ['t1'],
    };
    expect(offeredPart(requested, URIS_ONLY)).toEqual({ resourceSubscriptions: ['a://1'] });
    expect(offeredPart(requested, ALL)).toEqual(requested);
    expect(offeredPart({}, ALL)).toEqual({});
  });

  it('advertises exactly the offer', () => {
    expect(offeredCapabilities(URIS_ONLY)).toEqual({ tools: {}, prompts: {}, resources: { subscribe: true } });
    expect(offeredCapabilities(ALL)).toEqual({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
    expect(offersNothing({ ...URIS_ONLY, resourceSubscriptions: false })).toBe(true);
    expect(offersNothing(URIS_ONLY)).toBe(false);
  });

  it('lets through only the kinds and URIs in the filter', () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['a://1'], taskIds: ['t1'] };
    expect(filterWants(filter, { type: 'tools/list_changed' })).toBe(true);
    expect(filterWants(filter, { type: 'prompts/list_changed' })).toBe(false);
    expect(filterWants(filter, { type: 'resources/list_changed' })).toBe(false);
    expect(filterWants(filter, { type: 'resources/updated', uri: 'a://1' })).toBe(true);
    expect(filterWants(filter, { type: 'resources/updated', uri: 'a://2' })).toBe(false);
    expect(filterWants(filter, { type: 'tasks/status', taskId: 't1', params: {} })).toBe(true);
    expect(filterWants(filter, { type: 'tasks/status', taskId: 't2', params: {} })).toBe(false);
  });
});

describe('subscriptions/listen messages', () => {
  it('acknowledges with the honoured filter and the subscription id', () => {
    expect(acknowledgement(7, { toolsListChanged: true })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID_META]: 7 } },
    });
  });

  it('tags every notification with the subscription id', () => {
    expect(eventNotification('listen:1', { type: 'tools/list_changed' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID_META]: 'listen:1' } },
    });
    expect(
      eventNotification(3, { type: 'resources/updated', uri: 'a://1', meta: { 'example.com/status': 'running' } }),
    ).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'a://1', _meta: { 'example.com/status': 'running', [SUBSCRIPTION_ID_META]: 3 } },
    });
    // The publisher cannot overwrite the id or the task id.
    expect(
      eventNotification(3, {
        type: 'tasks/status',
        taskId: 't1',
        params: { status: 'working', taskId: 'other', _meta: {} },
      }).params,
    ).toEqual({
      status: 'working',
      taskId: 't1',
      _meta: { [SUBSCRIPTION_ID_META]: 3 },
    });
    expect(
      eventNotification(3, { type: 'resources/updated', uri: 'a://1', meta: { [SUBSCRIPTION_ID_META]: 99 } }).params
        ._meta,
    ).toEqual({ [SUBSCRIPTION_ID_META]: 3 });
  });

  it('ends with the empty listen result and frames one JSON line per SSE event', () => {
    expect(listenEnd(4)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META]: 4 } },
    });
    const frame = sseMessage({ a: { b: 1 } });
    expect(frame).toBe('event: message\ndata: {"a":{"b":1}}\n\n');
  });
});

describe('sseEventBytes: one serialization per event, the id spliced in per stream', () => {
  const SLOT = '\u0000subscription-id\u0000';
  const events: SubscriptionEvent[] = [
    { type: 'tools/list_changed' },
    { type: 'prompts/list_changed', audience: 'acme' },
    { type: 'resources/list_changed' },
    { type: 'resources/updated', uri: 'a://1' },
    {
      type: 'resources/updated',
      uri: 'kobana://kadu/executions/é"\\\n\u2028',
      audience: 'acme',
      meta: { 'example.com/status': 'running', nested: { n: [1, 'two', null] } },
    },
    // The publisher's meta cannot replace the id: the spliced bytes keep the id where the full serialization puts it.
    { type: 'resources/updated', uri: 'a://1', meta: { [SUBSCRIPTION_ID_META]: 99, after: true } },
    { type: 'tasks/status', taskId: 't1', params: { status: 'working', statusMessage: 'Running; 1 step 😀' } },
    { type: 'tasks/status', taskId: 't"2', params: { taskId: 'other', _meta: { x: 1 }, status: 'completed' } },
    // An event that carries the placeholder itself takes the slow path, still byte-identical.
    { type: 'resources/updated', uri: SLOT, meta: { [SLOT]: SLOT } },
    { type: 'tasks/status', taskId: SLOT, params: { status: 'working' } },
  ];
  const ids = [
    0,
    1,
    -7,
    2.5,
    1e21,
    Number.MAX_SAFE_INTEGER,
    '',
    '1',
    'listen-1',
    'quote " and \\ backslash',
    'ünïcødé ✓ 😀',
    '\u2028\u0000',
    SLOT,
  ];

  it('is byte-identical to sseMessage(eventNotification(id, event)) for every event type and id kind', () => {
    for (const event of events) {
      const bytes = sseEventBytes(event);
      for (const id of ids) {
        expect(bytes(id).toString('utf8'), `${JSON.stringify(event)} / ${JSON.stringify(id)}`).toBe(
          sseMessage(eventNotification(id, event)),
        );
        expect(bytes(id).equals(Buffer.from(sseMessage(eventNotification(id, event))))).toBe(true);
      }
    }
  });

  it('tells the number 1 from the string "1", and shares the bytes of one id', () => {
    const bytes = sseEventBytes({ type: 'tools/list_changed' });
    expect(bytes(1).toString()).toContain(`"${SUBSCRIPTION_ID_META}":1}`);
    expect(bytes('1').toString()).toContain(`"${SUBSCRIPTION_ID_META}":"1"}`);
    expect(bytes(1)).toBe(bytes(1));
  });
});
