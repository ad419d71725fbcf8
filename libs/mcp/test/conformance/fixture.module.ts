import { Module } from '@nestjs/common';
import { McpModule } from '@kobana/nest-mcp';
import { FixtureCatalogService } from './fixture-catalog.service.js';
import { FixtureListenService } from './fixture-listen.service.js';
import { FixtureTaskStore } from './fixture-task-store.js';
import { FixtureTaskToolsService } from './fixture-task-tools.service.js';
import { FixtureToolsService } from './fixture-tools.service.js';

const tasks = new FixtureTaskStore();

/**
 * The conformance fixture: an app built only with libs/mcp — all four revisions, no
 * authentication, localhost only, and the optional 2025 behaviours the suite exercises.
 */
@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'kadu-mcp-conformance-fixture', title: 'Conformance fixture', version: '1.0.0' },
      instructions: 'Conformance fixture for libs/mcp.',
      legacyLogging: true,
      legacySubscriptions: true,
      // The suite sends hundreds of requests a minute from one address; budgets are tested elsewhere.
      rateLimits: { general: false, writes: false, failedAuth: false },
      // subscriptions/listen: every kind the suite checks, on the embedded (single-process) bus.
      subscriptions: {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: true,
      },
      // The Tasks extension (SEP-2663), with the fixture's own task store.
      tasks,
    }),
  ],
  providers: [
    FixtureToolsService,
    FixtureCatalogService,
    FixtureListenService,
    FixtureTaskToolsService,
    { provide: FixtureTaskStore, useValue: tasks },
  ],
})
export class ConformanceFixtureModule {}
