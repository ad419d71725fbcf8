import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MembersModule } from '../members/members.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { AdminController } from './admin.controller.js';

/** The organisation's administration routes (`/api/v1/secrets`, `/api/v1/members`) over the secrets and members domains. */
@Module({
  imports: [AuthModule, SecretsModule, MembersModule],
  controllers: [AdminController],
})
export class AdminModule {}
