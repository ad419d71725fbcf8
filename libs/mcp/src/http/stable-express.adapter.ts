import { createServer as createHttpServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Nest's Express adapter, with one change: its server builds each request and response with
 * Express's prototypes (`app.request`, `app.response`) already in place.
 *
 * Express 5 re-parents every request and response (`Object.setPrototypeOf` in `app.handle`).
 * Objects whose prototype changes after construction leave V8's fast paths, and every property
 * access Node's HTTP code then makes on them pays for it: measured here, a bare Express route costs
 * ~120 µs of CPU per request against ~40 µs with this adapter (bench/RESULTS.md). Built with the
 * right prototype from the start, the objects are the same — same properties, same methods — and
 * Express's re-parenting becomes a no-op. Nothing else about the adapter changes.
 */
export class StableExpressAdapter extends ExpressAdapter {
  constructor(instance?: Express) {
    super(instance);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    // Nest's own server first: it also installs the 503-while-closing middleware and, with
    // forceCloseConnections, its connection tracking, which is carried over below.
    super.initHttpServer(options);
    const nestServer = this.getHttpServer() as Server;
    const app = this.getInstance<Express>();
    const classes = {
      IncomingMessage: constructedWith(
        IncomingMessage as unknown as (...args: never[]) => void,
        app.request,
      ) as typeof IncomingMessage,
      ServerResponse: constructedWith(
        ServerResponse as unknown as (...args: never[]) => void,
        app.response,
      ) as typeof ServerResponse,
    };
    const server = options?.httpsOptions
      ? createHttpsServer({ ...options.httpsOptions, ...classes }, app)
      : createHttpServer(classes, app);
    const own = new Set(server.listeners('connection'));
    for (const listener of nestServer.listeners('connection')) {
      if (!own.has(listener)) server.on('connection', listener as (socket: Socket) => void);
    }
    this.setHttpServer(server);
  }
}

/**
 * A constructor that builds `base` instances whose prototype is `prototype` from the start. Node's
 * `IncomingMessage` and `ServerResponse` are plain constructor functions, so they are applied to
 * the new object (`Reflect.construct` with another `new.target` measured ~5× slower here). If a
 * Node version makes them classes, the adapter keeps Node's own constructors.
 */
function constructedWith(base: (...args: never[]) => void, prototype: object): unknown {
  if (/^class\b/.test(Function.prototype.toString.call(base))) return base;
  function Constructed(this: object, ...args: never[]): void {
    base.apply(this, args);
  }
  Constructed.prototype = prototype;
  return Constructed;
}
