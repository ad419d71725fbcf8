import type { IncomingMessage } from 'node:http';
import { Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { McpConfig } from '../mcp-config.js';
import { endpointPaths, expressAppOf } from './endpoint-paths.js';

/**
 * The names body-parser gives its middleware (body-parser 1 and 2, so Express 4 and 5): what
 * Nest's default `bodyParser` option installs, and what `app.use(express.json())`,
 * `app.useBodyParser(...)` or `bodyParser.text()` add.
 */
const BODY_PARSER_NAMES = new Set(['jsonParser', 'urlencodedParser', 'rawParser', 'textParser']);

type Handler = (req: IncomingMessage, res: unknown, next: (error?: unknown) => void) => unknown;
interface RouterLayer {
  name?: string;
  handle: Handler;
}

/**
 * docs/ladder.md §2 puts authentication (rung 3) before the body limit and the parse (rungs 6 and 7), and
 * wants JSON-RPC errors for both: a host parser reading the endpoint's body first would answer
 * oversized or broken bodies with its own error page before anything of ours runs. So each
 * body-parser already in the host's Express stack is told to let the endpoint's requests through
 * untouched; the module then reads that body itself, with its own limit, after the guards.
 * Returns how many parsers now skip the endpoint.
 */
export function exemptEndpointFromBodyParsers(
  expressApp: unknown,
  isEndpoint: (req: IncomingMessage) => boolean,
): number {
  const app = expressApp as { router?: { stack?: RouterLayer[] }; _router?: { stack?: RouterLayer[] } };
  let stack: RouterLayer[] = [];
  try {
    // Express 4 keeps its router in `_router` (its `router` getter throws); Express 5 in `router`.
    stack = app._router?.stack ?? app.router?.stack ?? [];
  } catch {
    // An Express 4 app with no router yet has no middleware either.
  }
  let exempted = 0;
  for (const layer of stack) {
    if (!BODY_PARSER_NAMES.has(layer.name ?? layer.handle?.name ?? '')) continue;
    const parse = layer.handle;
    if ((parse as { mcpExempt?: boolean }).mcpExempt) continue;
    // Three parameters: Express treats a four-parameter function as an error handler.
    const skipEndpoint: Handler = (req, res, next) => (isEndpoint(req) ? next() : parse(req, res, next));
    Object.defineProperty(skipEndpoint, 'name', { value: parse.name });
    (skipEndpoint as { mcpExempt?: boolean }).mcpExempt = true;
    layer.handle = skipEndpoint;
    exempted++;
  }
  return exempted;
}

/** Whether a request's path is one of `paths` (Express's default routing: case-insensitive, trailing slash allowed). */
export function pathMatcher(paths: string[]): (req: IncomingMessage) => boolean {
  const wanted = new Set(paths.map((path) => `/${path.replace(/^\/+|\/+$/g, '')}`.toLowerCase()));
  return (req) => {
    const url = req.url ?? '';
    const end = url.search(/[?#]/);
    const path = (end === -1 ? url : url.slice(0, end)).replace(/(.)\/+$/, '$1').toLowerCase();
    return wanted.has(path);
  };
}

/**
 * At bootstrap — after Nest installed its own parsers (`bodyParser` left on) and the host's
 * `app.use(...)` middleware — exempts the endpoint from every body-parser found, whatever the host
 * configured. A parser the module cannot recognise still shows at run time (McpTransportGuard).
 */
@Injectable()
export class HostBodyParsers implements OnApplicationBootstrap {
  private readonly logger = new Logger('McpModule');

  constructor(
    private readonly config: McpConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Optional() private readonly appConfig?: ApplicationConfig,
  ) {}

  onApplicationBootstrap(): void {
    // Not Express (or no HTTP server): nothing installed a body-parser.
    const app = expressAppOf(this.adapterHost);
    if (!app) return;
    const exempted = exemptEndpointFromBodyParsers(app, pathMatcher(endpointPaths(this.config.path, this.appConfig)));
    if (exempted > 0)
      this.logger.debug(
        `${exempted} body-parser(s) of the app skip /${this.config.path}: the endpoint reads its own body`,
      );
  }
}
