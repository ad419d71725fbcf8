import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { MembersService } from './members.service.js';

/** Members of the organisation and their roles (kadu_members_*). */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule],
  providers: [MembersService],
  exports: [MembersService],
})
export class MembersModule {}
