import { Module } from '@nestjs/common';
import { DevAuthorizationServer } from './dev-authorization-server.js';
import { SignInController } from './sign-in.controller.js';

/**
 * The development authorization server (OAUTH_DEV_SERVER): on by default with development tokens
 * outside production, so an MCP client that follows the 401 → protected-resource metadata →
 * authorization server chain can connect to a local Kadu without a pasted token.
 */
@Module({
  controllers: [SignInController],
  providers: [DevAuthorizationServer],
})
export class DevAuthorizationServerModule {}
