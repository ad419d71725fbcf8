import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MEMBERSHIP } from '../auth/membership.js';
import { MembershipBinder } from '../auth/membership-binder.js';
import { DatabaseModule } from '../db/database.module.js';
import { MEMBERSHIP_CHANGES, RedisMembershipChanges } from './membership-changes.js';
import { OrgContextService } from './org-context.service.js';

/** The caller's organisation and membership (OrgContextService), and the member's current role on every verified token. */
@Module({
  imports: [DatabaseModule],
  providers: [
    {
      // With Redis, a member changed through one replica is forgotten by every replica's cache at once.
      provide: MEMBERSHIP_CHANGES,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) =>
        c.redis ? new RedisMembershipChanges(c.redis, c.redisPrefix, c.dependencyTimeoutMs) : null,
    },
    OrgContextService,
    // The bearer strategies apply the member's current role to every verified token (AuthModule).
    { provide: MEMBERSHIP, useExisting: OrgContextService },
    MembershipBinder,
  ],
  exports: [OrgContextService],
})
export class OrgsModule {}
