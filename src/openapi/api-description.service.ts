import { Inject, Injectable, type INestApplication } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Type } from '@nestjs/common';
import { McpToolRegistry } from '@kobana/nest-mcp';
import { VALIDATION_OPTIONS } from '../common/validation.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { KADU_VERSION } from '../mcp/kadu-mcp.options.js';
import { buildOpenApiDocument } from './openapi-document.js';

/**
 * The OpenAPI description of /api/v1, built from the running app and kept serialized. Building
 * needs the application object (the scanner walks its router), so bootstrap hands it over with
 * `build(app)` once the app is initialised (the tool registry is then complete); the document
 * itself is made on its first read — a third of a second of CPU that no start-up waits for
 * (issue 32, bench/RESULTS.md "Start-up"), and most processes never serve it.
 */
@Injectable()
export class ApiDescription {
  private app?: INestApplication;
  private serialized?: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tools: McpToolRegistry,
    private readonly discovery: DiscoveryService,
  ) {}

  build(app: INestApplication): void {
    this.app = app;
    this.serialized = undefined;
  }

  get json(): string {
    if (this.serialized === undefined) this.serialized = JSON.stringify(this.document());
    return this.serialized;
  }

  private document() {
    if (!this.app) throw new Error('The API description needs the app (ApiDescription.build at bootstrap)');
    return buildOpenApiDocument(this.app, {
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
  }
}
