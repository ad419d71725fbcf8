import { Injectable, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { McpConfig } from '../mcp-config.js';
import { endpointPaths, expressAppOf } from './endpoint-paths.js';

interface RouteLayer {
  route?: { path?: unknown };
  params?: unknown;
  path?: unknown;
  match(path: string): boolean;
}

/**
 * Express tries its router's layers in order, one regular expression each, until one matches: an
 * endpoint declared after a host's REST controllers (Kadu's was layer 56 of 68) pays for every
 * route before it on each call (bench/RESULTS.md, issue 32). So each route layer of the endpoint
 * (`paths`: the exact paths it is served at) is moved up past the route layers just before it that
 * cannot match the endpoint's path; it stops at any middleware layer (no `route`: order among
 * middleware and against them is kept) and at any route that could match it (a route declared
 * first for the same path still answers first). A request for any other path never matches the
 * moved layer, so it meets the same routes in the same order. Returns how many layers moved.
 */
export function hoistEndpointRoutes(expressApp: unknown, paths: string[]): number {
  const app = expressApp as { router?: { stack?: RouteLayer[] }; _router?: { stack?: RouteLayer[] } };
  let stack: RouteLayer[] | undefined;
  try {
    // Express 4 keeps its router in `_router` (its `router` getter throws); Express 5 in `router`.
    stack = app._router?.stack ?? app.router?.stack;
  } catch {
    return 0; // an Express 4 app with no router yet has no routes either
  }
  if (!Array.isArray(stack)) return 0;
  // Only an exact path (no parameter, wildcard or pattern) is moved: what it can match is then known.
  const exact = paths.filter((path) => /^\/[\w./~-]*$/.test(path));
  const isEndpoint = (layer: RouteLayer): boolean => {
    const path = layer.route?.path;
    return typeof path === 'string' && exact.includes(path);
  };
  // Every spelling Express routes to the endpoint (case-insensitive, trailing slash allowed by default).
  const probes = exact.flatMap((path) => [path, `${path}/`, path.toUpperCase(), `${path.toUpperCase()}/`]);
  let moved = 0;
  for (let i = 0; i < stack.length; i++) {
    const layer = stack[i]!;
    if (!isEndpoint(layer)) continue;
    let to = i;
    while (to > 0 && passable(stack[to - 1]!, isEndpoint, probes)) to--;
    if (to === i) continue;
    stack.splice(i, 1);
    stack.splice(to, 0, layer);
    moved++;
  }
  return moved;
}

/** A route layer for another path, that no spelling of the endpoint's path enters. */
function passable(layer: RouteLayer, isEndpoint: (layer: RouteLayer) => boolean, probes: string[]): boolean {
  if (!layer.route || isEndpoint(layer) || typeof layer.match !== 'function') return false;
  // `match` records the path and params on the layer; they are put back (a request sets its own).
  const { params, path } = layer;
  try {
    return !probes.some((probe) => layer.match(probe));
  } catch {
    return false;
  } finally {
    layer.params = params;
    layer.path = path;
  }
}

/**
 * At bootstrap (after Nest registered every controller's routes and the host's middleware), puts
 * the endpoint's route layers ahead of the host's unrelated routes (hoistEndpointRoutes).
 */
@Injectable()
export class EndpointRoutes implements OnApplicationBootstrap {
  constructor(
    private readonly config: McpConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Optional() private readonly appConfig?: ApplicationConfig,
  ) {}

  onApplicationBootstrap(): void {
    const app = expressAppOf(this.adapterHost);
    if (app) hoistEndpointRoutes(app, endpointPaths(this.config.path, this.appConfig));
  }
}
