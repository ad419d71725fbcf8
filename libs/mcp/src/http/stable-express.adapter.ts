import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  IncomingMessage,
  type Server,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import { type FailedReplyBody, replyAtTurnEnd } from './turn-end-reply.js';

/** What `StableExpressAdapter` does beyond building its objects (libs/mcp/docs/module-options.md). */
export interface StableExpressAdapterOptions {
  /**
   * Send the JSON objects and arrays Nest replies with (what a route handler returns, the bodies of
   * Nest's exception filter) at the end of the event loop's turn (turn-end-reply.ts), as the MCP
   * endpoint sends its answers. Off unless set.
   */
  readonly jsonRepliesAtTurnEnd?: boolean;
  /**
   * The body of the 500 answered when Express's send fails then, before the head is written (an
   * app's `etag` function that throws); Nest's `{ statusCode, message }` unless set.
   */
  readonly failedReplyBody?: FailedReplyBody;
}

/**
 * Nest's Express adapter, with two changes: its server builds each request and response with
 * Express's prototypes (`app.request`, `app.response`) already in place, and a request keeps the
 * headers object Node builds on the first read of `req.headers` (requestWithKeptHeaders). A third
 * is asked for: `jsonRepliesAtTurnEnd` (turn-end-reply.ts).
 *
 * Express re-parents every request and response (`Object.setPrototypeOf`: in `app.handle` in
 * Express 5, in its `expressInit` middleware in Express 4).
 * Objects whose prototype changes after construction leave V8's fast paths, and every property
 * access Node's HTTP code then makes on them pays for it: measured here, a bare Express route costs
 * ~120 µs of CPU per request against ~40 µs with this adapter (bench/RESULTS.md). Built with the
 * right prototype from the start, the objects are the same — same properties, same methods — and
 * Express's re-parenting becomes a no-op.
 *
 * The prototypes are built by subclassing Node's classes (builtOnExpressPrototype): V8 then sizes
 * each object for the properties Node's constructor adds.
 */
export class StableExpressAdapter extends ExpressAdapter {
  private readonly jsonRepliesAtTurnEnd: boolean;
  private readonly failedReplyBody: FailedReplyBody | undefined;

  constructor(instance?: Express, options: StableExpressAdapterOptions = {}) {
    super(instance);
    this.jsonRepliesAtTurnEnd = options.jsonRepliesAtTurnEnd === true;
    this.failedReplyBody = options.failedReplyBody;
  }

  // The base class's signature, as Nest 10 to 12 declare it, so that code holding this adapter calls it as it would Nest's.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override reply(response: any, body: any, statusCode?: number): any {
    if (this.jsonRepliesAtTurnEnd && replyAtTurnEnd(response as Response, body, statusCode, this.failedReplyBody))
      return response;
    return super.reply(response, body, statusCode);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    // Nest's own server first: it also installs the 503-while-closing middleware and, with
    // forceCloseConnections, its connection tracking, which is carried over below.
    super.initHttpServer(options);
    const nestServer = this.getHttpServer() as Server;
    const app = this.getInstance<Express>();
    const classes = {
      IncomingMessage: builtOnExpressPrototype(requestWithKeptHeaders(), app, 'request'),
      ServerResponse: builtOnExpressPrototype(
        class extends ServerResponse {} as typeof ServerResponse,
        app,
        'response',
      ),
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
 * Makes `Built`, a new subclass of Node's class, the prototype that takes the place of Express's
 * `app[key]`, with that object as its parent: its instances have what Express would give Node's
 * (`app`, Express's methods, whatever the app added to either prototype, before or after), from
 * the start.
 *
 * A subclass because V8 sizes an object by its constructor: built by `new` of a subclass, a
 * response has room for the ~45 properties Node's constructor adds. Built by applying Node's
 * constructor to an object of another function (this adapter's first version), it had room for
 * none, and every response went over to a dictionary of properties before Express saw it: a plain
 * Express route 9–28 % dearer (bench/RESULTS.md, issue 32, fifteenth pass). The subclass's prototype
 * cannot be Express's object itself (a class's `prototype` is fixed), so `app[key]` is replaced
 * by it; Express reads `app.request` / `app.response` on every request.
 */
function builtOnExpressPrototype<T extends { prototype: object }>(
  Built: T,
  app: Express,
  key: 'request' | 'response',
): T {
  const prototype = Built.prototype;
  Object.setPrototypeOf(prototype, app[key] as object);
  // `res.constructor` stays Node's class, as on Express's own prototype (which has none of its own).
  Reflect.deleteProperty(prototype, 'constructor');
  (app as unknown as Record<string, object>)[key] = prototype;
  return Built;
}

/** Node's own `req.headers` accessor: what the kept headers are built with and set through. */
const nodeHeaders = Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'headers')!;

/**
 * A request class (new for each server: builtOnExpressPrototype re-parents its prototype) whose
 * `req.headers` returns the object Node builds on the first read, kept in a field of its own.
 *
 * Node's getter reads a symbol-keyed field twice on every read. On a request that Express and Nest
 * have grown, V8 looks such a key up in the object's descriptors each time (a megamorphic keyed
 * load), and an MCP request reads `req.headers` about fourteen times: ~5 000 instructions of the
 * Kadu app's ~219 000 per call (bench/RESULTS.md, issue 32, twentieth pass). A named field is
 * found through V8's stub cache instead. The object is Node's own, built by Node's getter;
 * assigning `req.headers` replaces it for both, and a falsy one has it built again, as Node does.
 * The field is enumerable, as class fields are (a non-enumerable one would cost a
 * `defineProperty` per request), and holds what `rawHeaders`, enumerable too, already holds.
 */
function requestWithKeptHeaders(): typeof IncomingMessage {
  class RequestWithKeptHeaders extends IncomingMessage {
    /** Declared here, so that every request has it in the same place from its construction. */
    _keptHeaders: IncomingHttpHeaders | undefined = undefined;
  }
  Object.defineProperty(RequestWithKeptHeaders.prototype, 'headers', {
    configurable: true,
    enumerable: nodeHeaders.enumerable,
    get(this: RequestWithKeptHeaders): IncomingHttpHeaders {
      // `||`, as Node's getter tests its own field: a falsy value is built again from rawHeaders.
      return (this._keptHeaders ||= nodeHeaders.get!.call(this) as IncomingHttpHeaders);
    },
    set(this: RequestWithKeptHeaders, headers: IncomingHttpHeaders): void {
      nodeHeaders.set!.call(this, headers);
      this._keptHeaders = headers;
    },
  });
  return RequestWithKeptHeaders;
}
