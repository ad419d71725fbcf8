import { createRequire } from 'node:module';
import { join } from 'node:path';
import express5 from 'express';
import request from 'supertest';
import { hoistEndpointRoutes } from './endpoint-routes.js';

// Express 4 as Nest 10 adopters have it (test/adopters/cjs-nest10): the copy a pinned dev
// dependency (mcp-remote) brings along.
const fromMcpRemote = createRequire(join(process.cwd(), 'node_modules/mcp-remote/package.json'));
const express4 = fromMcpRemote('express') as typeof express5;
const versionOf = (require: NodeJS.Require) => (require('express/package.json') as { version: string }).version;

type Layer = { name?: string; route?: { path: string } };
const stackOf = (app: object): Layer[] =>
  ((app as { _router?: { stack: Layer[] } })._router ?? (app as { router: { stack: Layer[] } }).router).stack;
/** The stack as paths ("use" for a middleware layer). */
const shape = (app: object) =>
  stackOf(app).flatMap((l) => (l.route ? [l.route.path] : l.name === 'mark' ? ['use'] : []));

describe.each([
  ['Express 5', express5, versionOf(createRequire(import.meta.url))],
  ['Express 4', express4, versionOf(fromMcpRemote)],
])('hoisting the endpoint routes (%s)', (name, express, version) => {
  const text = (body: string) => (_req: unknown, res: { send(b: string): void }) => res.send(body);
  const mark = function mark(_req: unknown, res: { setHeader(n: string, v: string): void }, next: () => void) {
    res.setHeader('X-Mark', 'yes');
    next();
  };

  it('runs on the Express it names', () => {
    expect(version.split('.')[0]).toBe(name.split(' ')[1]);
  });

  it('moves the endpoint ahead of unrelated routes, behind the middleware, and every route still answers', async () => {
    const app = express();
    app.use(mark);
    app.get('/things', text('things'));
    app.get('/things/:id', text('a thing'));
    app.post('/mcp/approvals/:secret', text('approval'));
    app.all('/mcp', text('endpoint'));
    app.get('/after', text('after'));
    expect(hoistEndpointRoutes(app, ['/mcp'])).toBe(1);
    expect(shape(app)).toEqual(['use', '/mcp', '/things', '/things/:id', '/mcp/approvals/:secret', '/after']);
    for (const [method, path, body] of [
      ['get', '/things', 'things'],
      ['get', '/things/7', 'a thing'],
      ['post', '/mcp/approvals/x', 'approval'],
      ['post', '/mcp', 'endpoint'],
      ['get', '/MCP/', 'endpoint'],
      ['get', '/after', 'after'],
    ] as const) {
      const res = await request(app)[method](path);
      expect([res.status, res.text, res.headers['x-mark']], `${method} ${path}`).toEqual([200, body, 'yes']);
    }
    expect((await request(app).get('/nothing')).status).toBe(404);
  });

  it('a route declared before it that also matches the path still answers first', async () => {
    const app = express();
    app.get('/things', text('things'));
    app.get('/:page', text('a page'));
    app.get('/other', text('other'));
    app.get('/mcp', text('host mcp'));
    app.all('/mcp', text('endpoint'));
    hoistEndpointRoutes(app, ['/mcp']);
    expect(shape(app)).toEqual(['/things', '/:page', '/mcp', '/mcp', '/other']);
    expect(stackOf(app)[3]!.route).not.toBe(stackOf(app)[2]!.route);
    expect((await request(app).get('/mcp')).text).toBe('a page');
    expect((await request(app).post('/mcp')).text).toBe('endpoint');
    expect((await request(app).get('/other')).text).toBe('a page');
  });

  it('never passes a middleware layer', () => {
    const app = express();
    app.get('/a', text('a'));
    app.use(mark);
    app.get('/b', text('b'));
    app.all('/mcp', text('endpoint'));
    hoistEndpointRoutes(app, ['/mcp']);
    expect(shape(app)).toEqual(['/a', 'use', '/mcp', '/b']);
  });

  it('leaves a path with parameters or patterns where it is, and an app without routes alone', () => {
    const app = express();
    app.get('/a', text('a'));
    app.all('/mcp/:x', text('endpoint'));
    expect(hoistEndpointRoutes(app, ['/mcp/:x'])).toBe(0);
    expect(shape(app)).toEqual(['/a', '/mcp/:x']);
    expect(hoistEndpointRoutes(express(), ['/mcp'])).toBe(0);
  });
});
