import { Controller, Get, NotFoundException, Req, Res, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpConfig } from '../mcp-config.js';

/**
 * OAuth Protected Resource Metadata (RFC 9728) for the endpoint, at the path-inserted location and
 * at the root; public, cacheable and readable cross-origin, as clients fetch it before any login.
 */
export function createProtectedResourceController(path: string): Type {
  @Controller('.well-known/oauth-protected-resource')
  class ProtectedResourceController {
    constructor(private readonly config: McpConfig) {}

    @Get(path)
    forEndpoint(@Req() req: Request, @Res() res: Response): void {
      this.send(req, res);
    }

    @Get()
    atRoot(@Req() req: Request, @Res() res: Response): void {
      this.send(req, res);
    }

    private send(req: Request, res: Response): void {
      const resource = this.config.protectedResource;
      if (!resource) throw new NotFoundException();
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.json({
        resource: this.config.resourceUrl(req),
        authorization_servers: resource.authorizationServers,
        ...(resource.scopesSupported ? { scopes_supported: resource.scopesSupported } : {}),
        bearer_methods_supported: ['header'],
        ...(resource.resourceName ? { resource_name: resource.resourceName } : {}),
      });
    }
  }
  return ProtectedResourceController;
}
