import { Controller, Get, Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { PassportModule } from '@nestjs/passport';
import { ApiRateLimitGuard } from './api-rate-limit.guard.js';
import { ApiAuthGuard, McpAuthGuard } from './auth.guards.js';
import { PermissionGuard } from './permission.guard.js';
import { ApiBearerStrategy, bindAuth, McpBearerStrategy } from './bearer.strategies.js';
import { TokenVerifier } from './token-verifier.js';
import { KaduMcpState } from '../mcp/kadu-mcp.options.js';

/** Development JWKS: lets other local tools verify the app's development tokens. */
@Controller('.well-known')
class JwksController {
  constructor(private readonly verifier: TokenVerifier) {}

  @Get('jwks.json')
  jwks(): { keys: object[] } {
    return this.verifier.jwks();
  }
}

/** Binds this app's verifier to its own Express instance (see bindAuth). */
@Injectable()
class AuthBinder implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly verifier: TokenVerifier,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const express = this.adapterHost.httpAdapter.getInstance() as { locals: Record<string, unknown> };
    bindAuth(express.locals, {
      verifier: this.verifier,
      mcpAudience: this.config.mcpAudience,
      apiAudience: this.config.apiAudience,
    });
  }
}

/**
 * Token verification and the guards of both doors. A module with REST routes imports it for
 * `@UseGuards(ApiAuthGuard, PermissionGuard, ApiRateLimitGuard)`: Nest builds those guards in the
 * controller's module, so the budgets they spend (KaduMcpState, shared with the MCP endpoint) are
 * exported with them.
 */
@Module({
  imports: [PassportModule, KaduMcpState],
  controllers: [JwksController],
  providers: [
    TokenVerifier,
    AuthBinder,
    McpBearerStrategy,
    ApiBearerStrategy,
    McpAuthGuard,
    ApiAuthGuard,
    PermissionGuard,
    ApiRateLimitGuard,
  ],
  exports: [TokenVerifier, McpAuthGuard, ApiAuthGuard, PermissionGuard, ApiRateLimitGuard, KaduMcpState],
})
export class AuthModule {}
