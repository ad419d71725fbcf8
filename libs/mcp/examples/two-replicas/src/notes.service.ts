import { Injectable, type OnModuleInit } from '@nestjs/common';
import { McpArg, McpTool } from '@kobana/nest-mcp';
import { RedisConnection } from './redis.connection';
import { settings } from './settings';

const NOTES = `${settings.prefix}notes`;

/** Notes kept in Redis, so that every replica sees the same ones. */
@Injectable()
export class NotesService implements OnModuleInit {
  constructor(private readonly redis: RedisConnection) {}

  /** The first notes, written once whichever replica starts first. */
  async onModuleInit(): Promise<void> {
    await this.redis.client.hsetnx(NOTES, '1', 'Buy milk');
    await this.redis.client.hsetnx(NOTES, '2', 'Call Ana');
  }

  @McpTool({
    name: 'notes_list',
    title: 'List the notes',
    description: 'Lists the notes',
    annotations: { readOnlyHint: true },
  })
  async list() {
    const notes = await this.redis.client.hgetall(NOTES);
    return Object.entries(notes)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([id, text]) => ({ id, text }));
  }

  @McpTool({
    name: 'notes_delete',
    title: 'Delete a note',
    description: 'Deletes a note',
    annotations: { destructiveHint: true },
  })
  async remove(@McpArg('id') id: string) {
    return { deleted: (await this.redis.client.hdel(NOTES, id)) === 1 };
  }
}
