import type { ServerResponse } from 'node:http';
import express from 'express';
import fc from 'fast-check';
import { checkProperty } from '../../test/support/properties.js';
import { answerServer, type Handler, headerLines as lines } from '../../test/support/answer-server.js';
import { getHeldHeader, holdHeaders, setHeldHeader } from './held-headers.js';

const { exchange, close } = answerServer();
afterAll(close);

describe('held headers', () => {
  it('go out with the head, in the order they were held, before the answer’s own', async () => {
    const answer = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-1');
      setHeldHeader(res, 'Cache-Control', 'no-store');
      setHeldHeader(res, 'RateLimit-Limit', '300');
      res.writeHead(201, ['Content-Type', 'application/json', 'Content-Length', 2]);
      res.end('{}');
    });
    expect(answer.status).toBe(201);
    expect(lines(answer)).toEqual([
      ['Request-Id', 'r-1'],
      ['Cache-Control', 'no-store'],
      ['RateLimit-Limit', '300'],
      ['Content-Type', 'application/json'],
      ['Content-Length', '2'],
    ]);
    expect(answer.body).toBe('{}');
  });

  it('keep one line per name, the last value held, whatever the case of the name', async () => {
    const answer = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'RateLimit-Remaining', '299');
      setHeldHeader(res, 'RateLimit-Reset', '60');
      setHeldHeader(res, 'ratelimit-remaining', '59');
      res.end();
    });
    expect(lines(answer).filter(([name]) => name.startsWith('Rate') || name.startsWith('rate'))).toEqual([
      ['RateLimit-Remaining', '59'],
      ['RateLimit-Reset', '60'],
    ]);
  });

  it('are one name only when they differ by the case of letters (`^` and `~` differ by the same bit)', async () => {
    const answer = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'X-^', '1');
      setHeldHeader(res, 'X-~', '2');
      setHeldHeader(res, 'x-~', '3');
      res.end();
    });
    expect(lines(answer).filter(([name]) => name.startsWith('X') || name.startsWith('x'))).toEqual([
      ['X-^', '1'],
      ['X-~', '3'],
    ]);
  });

  it('give way to the answer’s own header of the same name, and to a setHeader made after them', async () => {
    const answer = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Cache-Control', 'no-store');
      setHeldHeader(res, 'X-Later', 'held');
      res.setHeader('x-later', 'set');
      res.writeHead(200, { 'cache-control': 'max-age=5' });
      res.end();
    });
    const got = lines(answer);
    expect(got.filter(([name]) => name.toLowerCase() === 'cache-control')).toEqual([['cache-control', 'max-age=5']]);
    expect(got.filter(([name]) => name.toLowerCase() === 'x-later')).toEqual([['x-later', 'set']]);
  });

  it('replace a header set with setHeader before them, as a second setHeader would', async () => {
    const answer = await exchange((_req, res) => {
      res.setHeader('Vary', 'Origin');
      holdHeaders(res);
      setHeldHeader(res, 'vary', 'Accept-Encoding');
      res.end();
    });
    expect(lines(answer).filter(([name]) => name.toLowerCase() === 'vary')).toEqual([['vary', 'Accept-Encoding']]);
  });

  it('are sent whichever code writes the head: end() alone, a reason phrase, Express’s res.json', async () => {
    const ended = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-2');
      res.statusCode = 404;
      res.end('gone');
    });
    expect(ended.status).toBe(404);
    expect(lines(ended)).toContainEqual(['Request-Id', 'r-2']);

    const reasoned = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-3');
      res.writeHead(503, 'Later, please', { 'Retry-After': '5' });
      res.end();
    });
    expect([reasoned.status, reasoned.statusMessage]).toEqual([503, 'Later, please']);
    expect(lines(reasoned)).toEqual([
      ['Request-Id', 'r-3'],
      ['Retry-After', '5'],
    ]);

    const app = express();
    app.disable('x-powered-by');
    app.use((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-4');
      res.status(400).json({ error: 'bad' });
    });
    const json = await exchange(app as unknown as Handler);
    expect(json.status).toBe(400);
    expect(lines(json)).toContainEqual(['Request-Id', 'r-4']);
    expect(JSON.parse(json.body)).toEqual({ error: 'bad' });
  });

  it('keep the answer’s own repeated lines and nested pairs as Node takes them', async () => {
    const answer = await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-5');
      res.writeHead(200, [
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ] as unknown as string[]);
      res.end();
    });
    expect(lines(answer)).toEqual([
      ['Request-Id', 'r-5'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ]);
  });

  it('call a writeHead wrapper installed before holding began (on-headers, compression)', async () => {
    const calls: number[] = [];
    const answer = await exchange((_req, res) => {
      const previous = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        calls.push(args[0] as number);
        this.setHeader('X-Wrapped', 'yes');
        return (previous as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as ServerResponse['writeHead'];
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-6');
      res.end();
    });
    expect(calls).toEqual([200]);
    expect(lines(answer)).toEqual(
      expect.arrayContaining([
        ['Request-Id', 'r-6'],
        ['X-Wrapped', 'yes'],
      ]),
    );
  });

  it('are read with getHeldHeader before and after the head; res.getHeader sees only setHeader’s', async () => {
    const seen: unknown[] = [];
    await exchange((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-7');
      res.setHeader('X-Set', 'set');
      seen.push(getHeldHeader(res, 'request-id'), res.getHeader('Request-Id'), getHeldHeader(res, 'X-Set'));
      res.writeHead(200, ['Content-Length', 0]);
      seen.push(getHeldHeader(res, 'Request-Id'), getHeldHeader(res, 'Content-Length'), getHeldHeader(res, 'X-None'));
      res.end();
    });
    expect(seen).toEqual(['r-7', undefined, 'set', 'r-7', 0, undefined]);
  });

  it('are plain setHeader without holdHeaders, and refused as setHeader is once the head is sent', async () => {
    const errors: unknown[] = [];
    const answer = await exchange((_req, res) => {
      setHeldHeader(res, 'Request-Id', 'r-8');
      errors.push(res.getHeader('Request-Id'));
      holdHeaders(res);
      res.writeHead(200);
      try {
        setHeldHeader(res, 'Late', 'x');
      } catch (error) {
        errors.push((error as { code?: string }).code);
      }
      res.end();
    });
    expect(errors).toEqual(['r-8', 'ERR_HTTP_HEADERS_SENT']);
    expect(lines(answer)).toEqual([['Request-Id', 'r-8']]);
  });

  it('hold nothing on a response with headers set already (Express’s X-Powered-By): setHeader, read by getHeader', async () => {
    const app = express();
    const seen: unknown[] = [];
    app.use((_req, res) => {
      holdHeaders(res);
      setHeldHeader(res, 'Request-Id', 'r-9');
      seen.push(res.getHeader('Request-Id'));
      res.writeHead(200, { 'Content-Length': 0 });
      res.end();
    });
    const answer = await exchange(app as unknown as Handler);
    expect(seen).toEqual(['r-9']);
    expect(lines(answer)).toEqual([
      ['X-Powered-By', 'Express'],
      ['Request-Id', 'r-9'],
      ['Content-Length', '0'],
    ]);
  });

  it('hold nothing on a response whose head is already sent', async () => {
    const answer = await exchange((_req, res) => {
      res.writeHead(204);
      holdHeaders(res);
      expect(() => setHeldHeader(res, 'Late', 'x')).toThrow(expect.objectContaining({ code: 'ERR_HTTP_HEADERS_SENT' }));
      res.end();
    });
    expect(answer.status).toBe(204);
  });

  /**
   * Any sequence of held headers, setHeader calls and the answer's own gives the lines one
   * setHeader per call would (the last write of a name wins), each name once.
   */
  it('answer as setHeader alone would, for any sequence (property, fixed seed)', async () => {
    const name = fc.constantFrom('Request-Id', 'request-id', 'Cache-Control', 'X-A', 'x-a', 'X-B');
    const value = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const step = fc.record({ how: fc.constantFrom('held' as const, 'set' as const), name, value });
    const own = fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n.toLowerCase(), maxLength: 3 });
    await checkProperty(
      'held headers answer as setHeader alone',
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), own, async (steps, ownHeaders) => {
        const expected = new Map<string, string>();
        for (const { name: n, value: v } of steps) expected.set(n.toLowerCase(), v);
        for (const [n, v] of ownHeaders) expected.set(n.toLowerCase(), v);
        const answer = await exchange((_req, res) => {
          holdHeaders(res);
          for (const { how, name: n, value: v } of steps)
            if (how === 'held') setHeldHeader(res, n, v);
            else res.setHeader(n, v);
          res.writeHead(200, ownHeaders.flat());
          res.end();
        });
        const got = lines(answer).map(([n, v]) => [n.toLowerCase(), v] as const);
        expect(new Map(got)).toEqual(expected);
        expect(got).toHaveLength(expected.size);
      }),
      { numRuns: 200 },
    );
  });
});
