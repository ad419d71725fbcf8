import { Inject, Injectable, type INestApplication } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Type } from '@nestjs/common';
import { McpToolRegistry } from '@kobana/nest-mcp';
import { VALIDATION_OPTIONS } from '../common/validation.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { KADU_VERSION } from '../mcp/kadu-mcp.options.js';
import { buildOpenApiDocument } from './openapi-document.js';

/**
 * The OpenAPI description of /api/v1, built once from the running app and kept serialized.
 * Building needs the application object (the scanner walks its router), so bootstrap calls
 * `build(app)` once the app is initialised (the tool registry is then complete).
 */
@Injectable()
export class ApiDescription {
  private serialized?: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tools: McpToolRegistry,
    private readonly discovery: DiscoveryService,
  ) {}

  build(app: INestApplication): void {
    const document = buildOpenApiDocument(app, {
      title: 'Kadu API',
      version: KADU_VERSION,
      publicBaseUrl: this.config.publicBaseUrl,
      apiAudience: this.config.apiAudience,
      issuer: this.config.oauthIssuer,
      closed: VALIDATION_OPTIONS.forbidNonWhitelisted === true,
      tools: this.tools,
      controllers: this.discovery
        .getControllers()
        .flatMap((wrapper) => (wrapper.metatype ? [wrapper.metatype as Type] : [])),
    });
    this.serialized = JSON.stringify(document);
  }

  get json(): string {
    if (this.serialized === undefined)
      throw new Error('The API description is built at bootstrap (ApiDescription.build)');
    return this.serialized;
  }
}
