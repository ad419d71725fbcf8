import { Module, ValidationPipe } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { McpModule, principalFromUser } from '@kobana/nest-mcp';
import { ApiKeyGuard, type AppUser } from './api-key.guard.js';
import { NotesController } from './notes.controller.js';
import { NotesService } from './notes.service.js';

@Module({ providers: [ApiKeyGuard], exports: [ApiKeyGuard] })
export class AuthModule {}

/** The app as it was, plus the McpModule import: its guard, and how its user object becomes the principal. */
@Module({
  imports: [
    AuthModule,
    McpModule.forRoot({
      serverInfo: { name: 'notes', version: '1.0.0' },
      guards: [ApiKeyGuard],
      imports: [AuthModule],
      principal: principalFromUser((user: AppUser) => ({ subject: user.id, scopes: [], roles: user.roles })),
    }),
  ],
  controllers: [NotesController],
  providers: [
    NotesService,
    { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }) },
  ],
})
export class AppModule {}
