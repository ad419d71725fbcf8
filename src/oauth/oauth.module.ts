import { Module } from '@nestjs/common';
import { KaduMcpModule } from '../mcp/kadu-mcp.module.js';
import { DevAuthorizationServer } from './dev-authorization-server.js';
import { SignInController } from './sign-in.controller.js';

/**
 * The development authorization server (OAUTH_DEV_SERVER): on by default with development tokens
 * outside production, so an MCP client that follows the 401 → protected-resource metadata →
 * authorization server chain can connect to a local Kadu without a pasted token. Its pages use
 * the MCP endpoint's page settings (McpConfig, exported by KaduMcpModule).
 */
@Module({
  imports: [KaduMcpModule],
  controllers: [SignInController],
  providers: [DevAuthorizationServer],
})
export class DevAuthorizationServerModule {}
