import { Module } from '@nestjs/common';
import { TasksController } from '../api/tasks.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { CommonModule } from '../common/common.module.js';
import { DatabaseModule } from '../db/database.module.js';
import { OrgsModule } from '../orgs/orgs.module.js';
import { TaskInputValidator } from './input-schema.js';
import { TaskRecords } from './task-records.js';
import { TasksService } from './tasks.service.js';

/** Tasks: what an organisation can run, their input schemas and launch policies (`/api/v1/tasks`, kadu_tasks_*). */
@Module({
  imports: [DatabaseModule, CommonModule, OrgsModule, AuthModule],
  controllers: [TasksController],
  providers: [TaskRecords, TasksService, TaskInputValidator],
  exports: [TasksService],
})
export class TasksModule {}
