import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { KaduMcpModule } from '../mcp/kadu-mcp.module.js';
import { ApiDescription } from './api-description.service.js';
import { ApiDocsController } from './api-docs.controller.js';

/**
 * The OpenAPI description of /api/v1 (`/api/v1/openapi.json`) and its reference page (`/api/v1/docs`);
 * it reads the tool registry (KaduMcpModule exports McpModule) for the routes' tool twins.
 */
@Module({
  imports: [DiscoveryModule, KaduMcpModule],
  controllers: [ApiDocsController],
  providers: [ApiDescription],
  exports: [ApiDescription],
})
export class OpenApiModule {}
