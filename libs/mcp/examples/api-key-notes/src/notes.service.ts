import { Injectable, NotFoundException } from '@nestjs/common';
import { McpArg, McpCaller, McpInput, McpTool } from '@kobana/nest-mcp';
import { CurrentUser } from './current-user.decorator.js';
import { CreateNoteDto } from './notes.dto.js';

export interface Note {
  id: string;
  ownerId: string;
  text: string;
}

@Injectable()
export class NotesService {
  private notes: Note[] = [];
  private next = 1;

  @McpTool({
    name: 'notes_list',
    title: 'List my notes',
    description: 'Lists your notes',
    annotations: { readOnlyHint: true },
  })
  list(@McpCaller('subject') ownerId: string): Note[] {
    return this.notes.filter((note) => note.ownerId === ownerId);
  }

  @McpTool({ name: 'notes_create', title: 'Create a note', description: 'Creates a note' })
  create(@CurrentUser('id') ownerId: string, @McpInput() dto: CreateNoteDto): Note {
    const note = { id: String(this.next++), ownerId, text: dto.text };
    this.notes.push(note);
    return note;
  }

  @McpTool({
    name: 'notes_delete',
    title: 'Delete a note',
    description: 'Deletes one of your notes',
    annotations: { destructiveHint: true },
    preflight: NotesService.prototype.get,
  })
  delete(@McpCaller((p) => p.subject) ownerId: string, @McpArg('id') id: string): { deleted: true } {
    this.get(ownerId, id);
    this.notes = this.notes.filter((note) => note.id !== id);
    return { deleted: true };
  }

  get(ownerId: string, id: string): Note {
    const note = this.notes.find((n) => n.id === id && n.ownerId === ownerId);
    if (!note) throw new NotFoundException({ error: 'note_not_found' });
    return note;
  }
}
