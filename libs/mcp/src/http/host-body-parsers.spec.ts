import type { IncomingMessage } from 'node:http';
import express from 'express';
import { exemptEndpointFromBodyParsers, pathMatcher } from './host-body-parsers.js';

const req = (url: string) => ({ url }) as IncomingMessage;

describe('the endpoint path matcher', () => {
  const isEndpoint = pathMatcher(['mcp', 'api/mcp']);

  it('matches the path as Express routes it: any case, a trailing slash, a query', () => {
    for (const url of ['/mcp', '/MCP', '/mcp/', '/mcp?x=1', '/api/mcp', '/api/mcp/?a#b'])
      expect(isEndpoint(req(url)), url).toBe(true);
  });

  it('matches nothing else', () => {
    for (const url of ['/', '/mcpx', '/mcp/approvals/abc', '/api', '/other/mcp', '//mcp'])
      expect(isEndpoint(req(url)), url).toBe(false);
  });
});

describe('exempting the endpoint from body parsers', () => {
  const stackOf = (app: express.Express) =>
    (app as unknown as { router: { stack: { name: string; handle: (...args: unknown[]) => unknown }[] } }).router.stack;

  it("wraps body-parser's layers only, keeps their names, and is idempotent", () => {
    const app = express();
    const own = function ownMiddleware(_req: unknown, _res: unknown, next: () => void) {
      next();
    };
    app.use(express.json(), express.urlencoded({ extended: true }), express.text(), express.raw(), own);
    const before = stackOf(app).map((layer) => layer.handle);
    expect(exemptEndpointFromBodyParsers(app, pathMatcher(['mcp']))).toBe(4);
    expect(exemptEndpointFromBodyParsers(app, pathMatcher(['mcp']))).toBe(0);
    const after = stackOf(app);
    expect(after.map((layer) => layer.handle.name)).toEqual(before.map((handle) => handle.name));
    expect(after.at(-1)!.handle).toBe(own);
  });

  it('passes the endpoint on without the parser reading it', () => {
    const app = express();
    app.use(express.json());
    exemptEndpointFromBodyParsers(app, pathMatcher(['mcp']));
    const parse = stackOf(app).at(-1)!.handle;
    const calls: string[] = [];
    parse({ url: '/mcp', headers: { 'content-type': 'application/json', 'content-length': '2' } }, {}, () =>
      calls.push('endpoint skipped'),
    );
    expect(calls).toEqual(['endpoint skipped']);
  });
});
