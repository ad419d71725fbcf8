import { type INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { McpArg, McpModule, McpTool } from '@kobana/nest-mcp';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { approvalPath } from '../support/approvals.js';
import { expectRpcResult } from '../support/wire.js';

/**
 * Issue 28, point 7: where a person reads — the chat's question, the approval page's heading — a
 * destructive tool is named by its `title`, else by the first sentence of its description, never
 * by its internal name while it has either.
 */
const DESTRUCTIVE = { annotations: { destructiveHint: true } };

@Injectable()
class NotesService {
  @McpTool({ name: 'notes_delete', title: 'Delete a note', description: 'Deletes a note.', ...DESTRUCTIVE })
  remove(@McpArg('id') id: string) {
    return { deleted: id };
  }

  @McpTool({ name: 'notes_purge', description: 'Deletes every note of a folder. It cannot be undone.', ...DESTRUCTIVE })
  purge(@McpArg('folder') folder: string) {
    return { purged: folder };
  }

  @McpTool({ name: 'notes_wipe', description: `${'A very long description '.repeat(5)}.`, ...DESTRUCTIVE })
  wipe(@McpArg('folder') folder: string) {
    return { wiped: folder };
  }
}

let app: INestApplication;
beforeAll(async () => {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 'notes', version: '1' },
        principal: () => ({ subject: 'ana', scopes: [] }),
        publicBaseUrl: 'http://localhost:3000',
      }),
    ],
    providers: [NotesService],
  })
  class AppModule {}
  app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  await app.init();
});
afterAll(() => app.close());

const CASES: [tool: string, args: Record<string, string>, shown: string][] = [
  ['notes_delete', { id: '1' }, 'Delete a note'],
  ['notes_purge', { folder: 'work' }, 'Deletes every note of a folder'],
  ['notes_wipe', { folder: 'work' }, 'notes_wipe'],
];

describe('the name a person reads', () => {
  it.each(CASES)('2026 form elicitation: %s is asked about by its title or description', async (tool, args, shown) => {
    const r = modernRequest(
      'tools/call',
      { name: tool, arguments: args },
      { id: 1, capabilities: { elicitation: {} } },
    );
    const ask = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 1);
    const message = (ask.inputRequests as Record<string, { params: { message: string } }>).confirm!.params.message;
    // The sentence first, then the question the form asks.
    expect(message.split('\n')[0]).toBe(`${shown} with ${JSON.stringify(args)}.`);
  });

  it.each(CASES)('2025 approval page: %s is headed by its title or description', async (tool, args, shown) => {
    const r = legacyRequest('tools/call', { name: tool, arguments: args }, { id: 2 });
    const result = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 2);
    const { error } = JSON.parse((result.content as { text: string }[])[0]!.text) as {
      error: { approval_url: string };
    };
    const page = await request(app.getHttpServer()).get(approvalPath(error.approval_url));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<h1>${shown}?</h1>`);
    if (shown !== tool) expect(page.text).not.toContain(`<h1>${tool}?</h1>`);
  });
});
