import { Body, Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiKeyGuard, type AppUser } from './api-key.guard.js';
import { CurrentUser } from './current-user.decorator.js';
import { CreateNoteDto } from './notes.dto.js';
import { NotesService } from './notes.service.js';

@Controller('notes')
@UseGuards(ApiKeyGuard)
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @Get()
  list(@CurrentUser() user: AppUser) {
    return this.notes.list(user.id);
  }

  @Post()
  create(@CurrentUser('id') ownerId: string, @Body() dto: CreateNoteDto) {
    return this.notes.create(ownerId, dto);
  }

  @Delete(':id')
  delete(@CurrentUser('id') ownerId: string, @Param('id') id: string) {
    return this.notes.delete(ownerId, id);
  }
}
