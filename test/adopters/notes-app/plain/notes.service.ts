import { Injectable, NotFoundException } from '@nestjs/common';
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

  list(ownerId: string): Note[] {
    return this.notes.filter((note) => note.ownerId === ownerId);
  }

  create(ownerId: string, dto: CreateNoteDto): Note {
    const note = { id: String(this.next++), ownerId, text: dto.text };
    this.notes.push(note);
    return note;
  }

  delete(ownerId: string, id: string): { deleted: true } {
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
