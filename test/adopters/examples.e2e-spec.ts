import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { decideApproval, EXAMPLES, ExampleScratch, run, type StartedExample } from '../support/example-apps.js';
import { redis, REDIS_URL, requires } from '../support/infrastructure.js';
import { brokenLinks } from '../support/markdown-links.js';
import { installNodeRuntimes, NODE_RUNTIMES } from '../support/node-runtimes.js';

/**
 * The package's examples (libs/mcp/examples), built from the tarball `npm pack` makes in this run and
 * driven by the official clients: the minimal app on Node 22 and Node 24 (tools/node-runtimes, their
 * own lockfile), the two-replica app as two processes on one Redis. Also the tarball itself: every
 * relative link of its README and docs resolves inside it.
 */
const root = new URL('../..', import.meta.url).pathname;
const QUICK_START_MARK = '<!-- quick-start: src/app.module.ts -->';

let scratch: ExampleScratch;

const text = (result: { content: unknown }) => JSON.parse((result.content as { text: string }[])[0]!.text) as unknown;

beforeAll(async () => {
  scratch = await ExampleScratch.create();
  await Promise.all([
    scratch.install('minimal'),
    scratch.install('two-replicas'),
    scratch.install('results-and-apps'),
    installNodeRuntimes(),
  ]);
}, 300_000);

afterAll(() => scratch?.close());

describe('the packed tarball', () => {
  it('ships the docs its README links to, and every relative link of its README and docs resolves inside it', async () => {
    const pkg = scratch.unpacked;
    for (const doc of ['README.md', 'docs/ladder.md', 'docs/security.md'])
      expect(existsSync(join(pkg, doc)), doc).toBe(true);
    expect(await brokenLinks(pkg)).toEqual([]);
  });

  it("the README's quick start is examples/minimal/src/app.module.ts, word for word", async () => {
    const readme = await readFile(join(root, 'libs/mcp/README.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(QUICK_START_MARK)))?.[1];
    expect(
      readme.includes(QUICK_START_MARK) && block,
      `libs/mcp/README.md has no ${QUICK_START_MARK} block`,
    ).toBeTruthy();
    expect(await readFile(join(EXAMPLES, 'minimal/src/app.module.ts'), 'utf8')).toBe(block);
  });
});

describe.each(Object.entries(NODE_RUNTIMES))('examples/minimal on %s', (line, node) => {
  let app: StartedExample;
  beforeAll(async () => {
    app = await scratch.start('minimal', node);
  });

  it(`runs on ${line} itself`, async () => {
    const { stdout } = await run(node, ['-p', 'process.version']);
    expect(stdout.trim()).toMatch(line === 'Node 22' ? /^v22\./ : /^v24\./);
    expect(app.child.spawnargs[0]).toBe(node);
  });

  it('@modelcontextprotocol/client (2026-07-28) lists, calls, and deletes once the person confirms in the chat', async () => {
    const asked: string[] = [];
    const client = new ClientV2(
      { name: 'example-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push((req.params as { message: string }).message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new TransportV2(app.url));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['notes_delete', 'notes_list']);
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual([
        { id: '1', text: 'Buy milk' },
        { id: '2', text: 'Call Ana' },
      ]);
      const confirmed = await client.callTool({ name: 'notes_delete', arguments: { id: '2' } });
      expect(confirmed.isError).toBeFalsy();
      expect(text(confirmed)).toEqual({ deleted: true });
      expect(asked).toHaveLength(1);
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual([
        { id: '1', text: 'Buy milk' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/sdk (2025 era) deletes once the person chose Continue on the approval page', async () => {
    const client = new ClientV1({ name: 'example-test', version: '1.0.0' });
    const transport = new TransportV1(app.url);
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      const pending = await client.callTool({ name: 'notes_delete', arguments: { id: '1' } });
      const { error } = text(pending) as { error: { code: string; approval_url: string } };
      expect(error.code).toBe('approval_required');
      expect(await decideApproval(error.approval_url, app.url.origin, 'approve')).toBe(200);
      expect(text(await client.callTool({ name: 'notes_delete', arguments: { id: '1' } }))).toEqual({ deleted: true });
      expect(text(await client.callTool({ name: 'notes_list', arguments: {} }))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('examples/results-and-apps', () => {
  let app: StartedExample;
  beforeAll(async () => {
    app = await scratch.start('results-and-apps', process.execPath);
  });

  it('@modelcontextprotocol/client (2026-07-28, rendering apps): outputSchema, _meta.ui, structuredContent it validates, the app', async () => {
    const client = new ClientV2({ name: 'example-test', version: '1.0.0' }, {
      versionNegotiation: { mode: 'auto' },
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    } as never);
    await client.connect(new TransportV2(app.url));
    try {
      const [tool] = (await client.listTools()).tools;
      expect(tool).toMatchObject({ name: 'forecast_get', _meta: { ui: { resourceUri: 'ui://forecast/view' } } });
      expect(tool!.outputSchema).toMatchObject({ type: 'object', required: ['data'] });
      const result = await client.callTool({ name: 'forecast_get', arguments: { city: 'Recife' } });
      expect(result.structuredContent).toEqual({ data: { city: 'Recife', celsius: 21 } });
      expect(text(result)).toEqual(result.structuredContent);
      const read = await client.readResource({ uri: 'ui://forecast/view' });
      expect(read.contents[0]).toMatchObject({
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { csp: {}, prefersBorder: true } },
      });
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/sdk (2025 era): the same result, validated by the client', async () => {
    const client = new ClientV1({ name: 'example-test', version: '1.0.0' });
    await client.connect(new TransportV1(app.url));
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'forecast_get', arguments: { city: 'Lisboa' } });
      expect(result.structuredContent).toEqual({ data: { city: 'Lisboa', celsius: 21 } });
    } finally {
      await client.close();
    }
  });
});

const withRedis = requires(await redis());

withRedis.describe('examples/two-replicas: two processes on one Redis', () => {
  const prefix = `examples-${randomBytes(6).toString('hex')}:`;
  let a: StartedExample;
  let b: StartedExample;
  beforeAll(async () => {
    // The balancer's URL, as approval links name it; the test itself sends each request to a replica.
    const shared = {
      STATE_KEY: randomBytes(32).toString('hex'),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      PUBLIC_BASE_URL: 'http://localhost:8080',
    };
    [a, b] = await Promise.all([
      scratch.start('two-replicas', process.execPath, shared),
      scratch.start('two-replicas', process.execPath, shared),
    ]);
  });
  afterAll(async () => {
    const redisClient = new Redis(REDIS_URL);
    const keys = await redisClient.keys(`${prefix}*`);
    if (keys.length) await redisClient.del(...keys);
    redisClient.disconnect();
  });

  /** A fetch that sends each request to the replica `target()` names: the test plays the balancer. */
  const pinned = (target: () => URL) => (url: string | URL, init?: RequestInit) => {
    const to = new URL(url);
    to.host = target().host;
    return fetch(to, init);
  };

  it('@modelcontextprotocol/client (2026-07-28): the person is asked by replica A, the confirmed call runs on replica B', async () => {
    let replica = a;
    const answeredBy: string[] = [];
    const client = new ClientV2(
      { name: 'example-test', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    client.setRequestHandler('elicitation/create', async () => {
      // The retry that carries the answer goes to the other replica.
      replica = b;
      return { action: 'accept', content: { confirm: true } };
    });
    const fetchVia = pinned(() => replica.url);
    const transport = new TransportV2(a.url, {
      fetch: async (url, init) => {
        const res = await fetchVia(url, init);
        answeredBy.push(replica === a ? 'A' : 'B');
        return res;
      },
    });
    await client.connect(transport);
    try {
      const deleted = await client.callTool({ name: 'notes_delete', arguments: { id: '2' } });
      expect(deleted.isError).toBeFalsy();
      expect(text(deleted)).toEqual({ deleted: true });
      expect(answeredBy.at(-2)).toBe('A'); // input_required
      expect(answeredBy.at(-1)).toBe('B'); // the confirmed retry
    } finally {
      await client.close();
    }
    // Replica A sees the deletion B made: the notes live in Redis too.
    const check = new ClientV2({ name: 'example-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await check.connect(new TransportV2(a.url));
    try {
      expect(text(await check.callTool({ name: 'notes_list', arguments: {} }))).toEqual([
        { id: '1', text: 'Buy milk' },
      ]);
    } finally {
      await check.close();
    }
  });

  it('@modelcontextprotocol/sdk (2025 era): approved on replica B, completed on replica A, once', async () => {
    const client = new ClientV1({ name: 'example-test', version: '1.0.0' });
    await client.connect(new TransportV1(a.url));
    try {
      const pending = await client.callTool({ name: 'notes_delete', arguments: { id: '1' } });
      const { error } = text(pending) as { error: { code: string; approval_url: string } };
      expect(error.code).toBe('approval_required');
      expect(await decideApproval(error.approval_url, b.url.origin, 'approve')).toBe(200);
      expect(text(await client.callTool({ name: 'notes_delete', arguments: { id: '1' } }))).toEqual({ deleted: true });
      // The approval was used: asking again starts a new one, on either replica.
      const again = await client.callTool({ name: 'notes_delete', arguments: { id: '1' } });
      expect((text(again) as { error: { code: string } }).error.code).toBe('approval_required');
    } finally {
      await client.close();
    }
    const other = new ClientV1({ name: 'example-test', version: '1.0.0' });
    await other.connect(new TransportV1(b.url));
    try {
      expect(text(await other.callTool({ name: 'notes_list', arguments: {} }))).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
