import { Controller, Get, Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ApiAuthGuard, McpAuthGuard } from './auth.guards.js';
import { ApiBearerStrategy, McpBearerStrategy } from './bearer.strategies.js';
import { TokenVerifier } from './token-verifier.js';

/** Development JWKS: lets other local tools verify the app's development tokens. */
@Controller('.well-known')
class JwksController {
  constructor(private readonly verifier: TokenVerifier) {}

  @Get('jwks.json')
  jwks(): { keys: object[] } {
    return this.verifier.jwks();
  }
}

@Global()
@Module({
  imports: [PassportModule],
  controllers: [JwksController],
  providers: [TokenVerifier, McpBearerStrategy, ApiBearerStrategy, McpAuthGuard, ApiAuthGuard],
  exports: [TokenVerifier, McpAuthGuard, ApiAuthGuard],
})
export class AuthModule {}
