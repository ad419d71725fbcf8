import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module.js';
import { KaduMcpState } from '../mcp/kadu-mcp.options.js';
import { HealthController } from './health.controller.js';

/** `/health/live` and `/health/ready`: the database and the state store answer. */
@Module({
  imports: [DatabaseModule, KaduMcpState],
  controllers: [HealthController],
})
export class HealthModule {}
