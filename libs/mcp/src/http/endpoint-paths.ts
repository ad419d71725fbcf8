import type { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';

/** The Express application behind Nest's adapter; undefined on another platform, or without an HTTP server. */
export function expressAppOf(adapterHost: HttpAdapterHost): Function | undefined {
  const instance: unknown = adapterHost.httpAdapter?.getInstance?.();
  return typeof instance === 'function' ? instance : undefined;
}

/** The paths the endpoint is served at: `/<path>`, and under the app's global prefix when one is set. */
export function endpointPaths(path: string, appConfig: ApplicationConfig | undefined): string[] {
  const prefix = (appConfig?.getGlobalPrefix() ?? '').replace(/^\/+|\/+$/g, '');
  return prefix ? [`/${path}`, `/${prefix}/${path}`] : [`/${path}`];
}
