import { Module } from '@nestjs/common';
import { AccountController } from '../api/account.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { AccountService } from './account.service.js';

/** The caller's account and the organisation's usage (`/api/v1/me`, `/api/v1/usage`, kadu_account_*). */
@Module({
  imports: [DatabaseModule, OrgsModule, AuthModule],
  controllers: [AccountController],
  providers: [AccountService],
  exports: [AccountService],
})
export class UsageModule {}
