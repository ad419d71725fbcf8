import { Injectable, Module } from '@nestjs/common';
import { McpArg, McpModule, McpTool } from '@kobana/nest-mcp';

@Injectable()
export class NotesService {
  private readonly notes = new Map([
    ['1', 'Buy milk'],
    ['2', 'Call Ana'],
  ]);
  @McpTool({
    name: 'notes_list',
    title: 'List the notes',
    description: 'Lists the notes',
    annotations: { readOnlyHint: true },
  })
  list() {
    return [...this.notes].map(([id, text]) => ({ id, text }));
  }
  @McpTool({
    name: 'notes_delete',
    title: 'Delete a note',
    description: 'Deletes a note',
    annotations: { destructiveHint: true },
  })
  remove(@McpArg('id') id: string) {
    return { deleted: this.notes.delete(id) };
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'notes', version: '1.0.0' },
      principal: () => ({ subject: 'local-dev', scopes: [] }),
    }),
  ],
  providers: [NotesService],
})
export class AppModule {}
